import { type HeadlessTerminal, type PooledTerminal, screenTerminals } from '../screen/terminal-pool.js';
import { EscapeStringCap } from '../screen/escape-string-cap.js';
import { capScreenLinks } from '../screen/link-registry-cap.js';
import { clampParseWork } from '../screen/parse-work-clamp.js';
import { pauseAtSizeBoundSequences } from '../screen/parse-yield.js';
import { serializeScreen } from '../screen/serialize-screen.js';
import { screenText } from './screen-text.js';

/** The largest piece of output handed to xterm at once (see ScreenBook.write). */
const MAX_WRITE_PIECE = 4096;

/** What a screen is asked to do, in order, by the thread that forwards output. */
export type ScreenRequest =
  | { readonly op: 'open'; readonly id: number; readonly cols: number; readonly rows: number; readonly scrollback: number; readonly maxLinks: number }
  | { readonly op: 'write'; readonly id: number; readonly data: string | Uint8Array; readonly seq: number }
  | { readonly op: 'resize'; readonly id: number; readonly cols: number; readonly rows: number }
  /** Answered once every earlier write is parsed: the seq, with the snapshot text or the visible lines when asked. */
  | { readonly op: 'query'; readonly id: number; readonly token: number; readonly want: ScreenQuery }
  /** Frees the screen; answered with the lines it last showed. Queries still waiting are answered first. */
  | { readonly op: 'dispose'; readonly id: number; readonly token: number };

export type ScreenQuery = 'seq' | 'snapshot' | 'text';

export interface ScreenSize {
  readonly cols: number;
  readonly rows: number;
}

export type ScreenReply =
  /** `size` comes with a snapshot: the size its text was serialised at. */
  | { readonly kind: 'answer'; readonly token: number; readonly seq: number; readonly text?: string; readonly size?: ScreenSize }
  | { readonly kind: 'title'; readonly id: number; readonly title: string }
  /** The screen threw (xterm refuses a write once 50,000,000 units wait unparsed) and is gone; its queries will not be answered. */
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };

/** One screen: its xterm terminal (from the pool), what it has parsed, and its snapshot text until the screen changes. */
class BookScreen {
  readonly pooled: PooledTerminal;
  parsed = 0;
  /** Writes and barriers handed to xterm whose callbacks have not run yet. */
  inFlight = 0;
  /** Queries waiting on a barrier, answered early if the screen is disposed (xterm drops pending callbacks). */
  readonly waiting = new Set<() => void>();
  /**
   * The last serialisation, until the screen changes: a parsed write or a
   * resize drops it. A reconnect storm or a snapshot flood then serialises an
   * unchanged screen once, not per request.
   */
  serialized: string | undefined;
  /** Overlong OSC and DCS strings are cut before xterm collects them: a 9 MB title cost 300 MB. */
  readonly escapeStrings = new EscapeStringCap();

  private readonly titleSubscription: { dispose(): void };
  /** Counts that loop per unit (REP, scrolls, line inserts) are cut to what the screen can show: ten bytes once held the worker for seconds. */
  private readonly parseWorkClamp: { dispose(): void };
  /** OSC 8 links remembered, at most maxScreenLinks: xterm kept every one, at about 3 KB each. */
  private readonly linkCap: { dispose(): void };
  /** Sequences that cost what the screen's size costs are points where xterm may pause, so one screen cannot hold the worker. */
  private readonly pausePoints: { dispose(): void };

  constructor(cols: number, rows: number, scrollback: number, maxLinks: number, onTitle: (title: string) => void) {
    this.pooled = screenTerminals.take(cols, rows, scrollback);
    this.titleSubscription = this.term.onTitleChange(onTitle);
    this.parseWorkClamp = clampParseWork(this.term);
    this.linkCap = capScreenLinks(this.term, maxLinks);
    this.pausePoints = pauseAtSizeBoundSequences(this.term);
  }

  get term(): HeadlessTerminal {
    return this.pooled.term;
  }

  serialize(): string {
    // What goes on the wire keeps the form released clients draw (SnapshotForm).
    return (this.serialized ??= serializeScreen(this.pooled, 'wire'));
  }

  /**
   * Gives the terminal back to the pool, or disposes it when writes are still
   * queued: xterm then drops them and their callbacks, rather than parse output
   * nobody will read, and the next owner never hears them.
   */
  release(): void {
    this.titleSubscription.dispose();
    this.parseWorkClamp.dispose();
    this.linkCap.dispose();
    this.pausePoints.dispose();
    if (this.inFlight === 0) screenTerminals.give(this.pooled);
    else this.term.dispose();
  }
}

/**
 * Every screen of a host, over @xterm/headless, driven by requests and
 * answering through `reply`. It runs where the screens are parsed: in the
 * screen worker, so parsing a flood of output never holds up forwarding it,
 * or inline on the host's own thread. xterm parses asynchronously, so each
 * screen tracks the output high-water mark it has parsed, and a query is
 * answered only once every write before it was parsed.
 */
export class ScreenBook {
  private readonly screens = new Map<number, BookScreen>();

  constructor(private readonly reply: (reply: ScreenReply) => void) {}

  /** Never throws: a screen that does is dropped and reported, and the others go on. */
  handle(request: ScreenRequest): void {
    try {
      this.apply(request);
    } catch (error) {
      this.fail(request.id, error);
    }
  }

  private apply(request: ScreenRequest): void {
    if (request.op === 'open') return this.open(request.id, request.cols, request.rows, request.scrollback, request.maxLinks);
    const screen = this.screens.get(request.id);
    switch (request.op) {
      case 'write':
        if (screen) this.write(screen, request.data, request.seq);
        return;
      case 'resize':
        if (screen && (request.cols !== screen.term.cols || request.rows !== screen.term.rows)) {
          screen.term.resize(request.cols, request.rows);
          screen.serialized = undefined;
        }
        return;
      case 'query':
        // A query for a screen already gone is never answered: its asker disposed it.
        if (screen) this.whenParsed(screen, () => this.answer(screen, request.token, request.want));
        return;
      case 'dispose':
        return this.dispose(request.id, request.token);
    }
  }

  private fail(id: number, error: unknown): void {
    const screen = this.screens.get(id);
    this.screens.delete(id);
    screen?.waiting.clear();
    screen?.term.dispose(); // not back to the pool: its state is whatever the failure left
    this.reply({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  }

  private open(id: number, cols: number, rows: number, scrollback: number, maxLinks: number): void {
    this.screens.set(id, new BookScreen(cols, rows, scrollback, maxLinks, (title) => this.reply({ kind: 'title', id, title })));
  }

  private write(screen: BookScreen, data: string | Uint8Array, seq: number): void {
    const filtered = screen.escapeStrings.filter(data);
    // xterm checks its time slice only between writes: in pieces, a 64 KiB write of line feeds on a
    // 1000-row screen (1.2 s) is many short ones. Its decoders carry a code point cut between pieces.
    const piece = (from: number, to?: number) => (typeof filtered === 'string' ? filtered.slice(from, to) : filtered.subarray(from, to));
    for (let at = 0; at + MAX_WRITE_PIECE < filtered.length; at += MAX_WRITE_PIECE) screen.term.write(piece(at, at + MAX_WRITE_PIECE));
    const last = filtered.length > MAX_WRITE_PIECE ? piece(Math.floor((filtered.length - 1) / MAX_WRITE_PIECE) * MAX_WRITE_PIECE) : filtered;
    screen.inFlight++;
    screen.term.write(last, () => {
      screen.inFlight--;
      screen.parsed = seq;
      screen.serialized = undefined;
    });
  }

  /**
   * Runs `answer` once every write so far is parsed. xterm runs write
   * callbacks in order, so an empty write is a barrier. When nothing is in
   * flight the screen is already there: no need to wait for xterm's next parse
   * timer (a subscribe to an idle screen, a reconnect storm).
   */
  private whenParsed(screen: BookScreen, answer: () => void): void {
    if (screen.inFlight === 0) return answer();
    screen.inFlight++;
    screen.waiting.add(answer);
    screen.term.write('', () => {
      screen.inFlight--;
      if (screen.waiting.delete(answer)) answer();
    });
  }

  private answer(screen: BookScreen, token: number, want: ScreenQuery): void {
    if (want === 'snapshot') {
      const { cols, rows } = screen.term;
      return this.reply({ kind: 'answer', token, seq: screen.parsed, text: screen.serialize(), size: { cols, rows } });
    }
    this.reply({ kind: 'answer', token, seq: screen.parsed, ...(want === 'text' ? { text: screenText(screen.term) } : {}) });
  }

  private dispose(id: number, token: number): void {
    const screen = this.screens.get(id);
    if (!screen) return this.reply({ kind: 'answer', token, seq: 0, text: '' });
    this.screens.delete(id);
    for (const answer of screen.waiting) answer();
    screen.waiting.clear();
    const text = screenText(screen.term);
    screen.release();
    this.reply({ kind: 'answer', token, seq: screen.parsed, text });
  }
}
