import { type HeadlessTerminal, type PooledTerminal, screenTerminals } from '../screen/terminal-pool.js';
import { EscapeStringCap } from '../screen/escape-string-cap.js';
import { capScreenLinks } from '../screen/link-registry-cap.js';
import { clampParseWork } from '../screen/parse-work-clamp.js';
import { pauseAtSizeBoundSequences } from '../screen/parse-yield.js';
import { keepLineFeeds, scrolledPastBytes } from '../screen/scrolled-past.js';
import { ScreenSerialization, type SnapshotForm } from '../screen/serialize-screen.js';
import { xtermParser, xtermPenIsDefault, xtermSkipsScrolledPast } from '../screen/xterm-internals.js';
import { ParseScheduler } from './parse-scheduler.js';
import { type FeedWork, ScreenFeed } from './screen-feed.js';
import { screenText } from './screen-text.js';

/**
 * Slices of work an idle screen's snapshot takes before the other terminals'
 * once its first slice, as its request came, was not enough: an ordinary
 * screen's is answered then, even cold (the first serialisation of a process
 * took three 4 ms slices at 80x24 under load), and a large one waits its
 * turns after. Counted in work (ScreenFeed.queueWork): on a machine that
 * takes the thread away, a slice of wall time may hold a row or two.
 */
export const SNAPSHOT_NEXT_SLICES = 3;

/** What a screen is asked to do, in order, by the thread that forwards output. */
export type ScreenRequest =
  | { readonly op: 'open'; readonly id: number; readonly cols: number; readonly rows: number; readonly scrollback: number; readonly maxLinks: number; readonly sliceMs: number; readonly maxBacklogMs: number }
  | { readonly op: 'write'; readonly id: number; readonly data: string | Uint8Array; readonly seq: number }
  | { readonly op: 'resize'; readonly id: number; readonly cols: number; readonly rows: number }
  /** Answered once every earlier write is parsed: the seq, with the snapshot text or the visible lines when asked. */
  | { readonly op: 'query'; readonly id: number; readonly token: number; readonly want: ScreenQuery }
  /** Frees the screen; answered with the lines it last showed. Queries still waiting are answered first. */
  | { readonly op: 'dispose'; readonly id: number; readonly token: number }
  /** The snapshot query `token` is no longer wanted (its stream closed): it is never answered, and not serialised for. */
  | { readonly op: 'withdraw'; readonly id: number; readonly token: number };

/** `snapshot` in the form released clients draw, `repaintSnapshot` in the repaint form (a stream that negotiated snapshotRepaint); see SnapshotForm. */
export type ScreenQuery = 'seq' | 'snapshot' | 'repaintSnapshot' | 'text';

const SNAPSHOT_FORMS: Partial<Record<ScreenQuery, SnapshotForm>> = { snapshot: 'wire', repaintSnapshot: 'repaint' };

export interface ScreenSize {
  readonly cols: number;
  readonly rows: number;
}

export type ScreenReply =
  /** `size` comes with a snapshot: the size its text was serialised at. `also`: other snapshot queries this one text answers, so it crosses the thread once. */
  | { readonly kind: 'answer'; readonly token: number; readonly seq: number; readonly text?: string; readonly size?: ScreenSize; readonly also?: readonly number[] }
  | { readonly kind: 'title'; readonly id: number; readonly title: string }
  /** The screen's queued output would take over maxBacklogMs to parse (behind), or is back under half of it. */
  | { readonly kind: 'behind'; readonly id: number; readonly behind: boolean; readonly backlogMs: number }
  /** The screen threw (its terminal could not be built, or its parse failed) and is gone; its queries will not be answered. */
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };

/** A screen's options as the open request carries them. */
export type ScreenShape = Omit<Extract<ScreenRequest, { op: 'open' }>, 'op' | 'id'>;

/** Snapshot queries answered by one serialisation, all in one form; `mayJoinLater` until it took others in. */
interface SnapshotRequest {
  readonly form: SnapshotForm;
  readonly tokens: number[];
  mayJoinLater: boolean;
}

/** One screen: its xterm terminal (from the pool), its output waiting to be parsed, what it has parsed, and its snapshot text until the screen changes. */
class BookScreen {
  readonly pooled: PooledTerminal;
  readonly feed: ScreenFeed;
  parsed = 0;
  /**
   * The last serialisation in each form, until the screen changes: a parsed
   * write or a resize drops them. A reconnect storm or a snapshot flood then
   * serialises an unchanged screen once per form, not per request.
   */
  private serialized: Partial<Record<SnapshotForm, string>> = {};
  /** The serialisation under way, a few rows per slice of the feed's turn: the screen must not change until it is done. */
  private serializing: ScreenSerialization | undefined;
  /** A resize that came while a serialisation was under way: applied once it is done, after its answer. */
  private heldResize: { readonly cols: number; readonly rows: number } | undefined;
  /** Snapshot requests queued in the feed and not yet answered, oldest first. */
  private readonly waitingSnapshots: SnapshotRequest[] = [];
  /** Overlong OSC and DCS strings are cut before xterm collects them: a 9 MB title cost 300 MB. */
  readonly escapeStrings = new EscapeStringCap();

  private readonly titleSubscription: { dispose(): void };
  /** Counts that loop per unit (REP, scrolls, line inserts) are cut to what the screen can show: ten bytes once held the worker for seconds. */
  private readonly parseWorkClamp: { dispose(): void };
  /** OSC 8 links remembered, at most maxScreenLinks: xterm kept every one, at about 3 KB each. */
  private readonly linkCap: { dispose(): void };
  /** Sequences that cost what the screen's size costs are points where xterm may pause, so one screen cannot hold the worker. */
  private readonly pausePoints: { dispose(): void };

  constructor({ cols, rows, scrollback, maxLinks, sliceMs, maxBacklogMs }: ScreenShape, scheduler: ParseScheduler, reply: (reply: ScreenReply) => void, id: number, onFailed: (error: unknown) => void) {
    this.pooled = screenTerminals.take(cols, rows, scrollback);
    const parse = xtermParser(this.term);
    if (!parse) {
      this.term.dispose();
      throw new Error("xterm's parser is not where @xterm/headless 6 keeps it (_core._inputHandler.parse)");
    }
    // The last title set, replied once its piece is parsed or the parse reaches a pause point: a program that sets
    // thousands a second costs a message a piece, not one each (such a flood held every terminal's echo 0.5 s).
    let pendingTitle: string | undefined;
    const replyTitle = () => {
      if (pendingTitle === undefined) return;
      reply({ kind: 'title', id, title: pendingTitle });
      pendingTitle = undefined;
    };
    this.feed = new ScreenFeed(parse, sliceMs, maxBacklogMs, scheduler, {
      parsed: (seq) => (this.parsed = seq),
      changed: () => {
        this.serialized = {};
        replyTitle();
      },
      behind: (behind, backlogMs) => reply({ kind: 'behind', id, behind, backlogMs: Math.round(backlogMs) }),
    }, onFailed, {
      ready: () => xtermSkipsScrolledPast(this.term),
      look: (queued, offset) => scrolledPastBytes(queued, offset, keepLineFeeds(this.term.rows, this.term.options.scrollback ?? 0), xtermPenIsDefault(this.term)),
    });
    this.titleSubscription = this.term.onTitleChange((title) => (pendingTitle = title));
    this.parseWorkClamp = clampParseWork(this.term);
    this.linkCap = capScreenLinks(this.term, maxLinks);
    this.pausePoints = pauseAtSizeBoundSequences(this.term, () => {
      replyTitle();
      return scheduler.sliceOver();
    });
  }

  get term(): HeadlessTerminal {
    return this.pooled.term;
  }

  /**
   * Work for the feed that answers the snapshot query `token` with the text:
   * the one kept while the screen is unchanged, or a serialisation taken a
   * few rows per slice, so an 18 MB screen (4.6 s whole) holds other
   * terminals' requests one slice at a time. The feed holds this screen's
   * output meanwhile: the text is the screen at one seq.
   *
   * A request that would start a serialisation while a later one of its form
   * waits in the queue joins that later one instead, once: a snapshot taken later
   * covers everything an earlier one would, so a Subscribe storm on a
   * printing screen costs one serialisation per serialisation's time, not
   * one per request. A request whose every query was withdrawn is dropped,
   * or its serialisation abandoned.
   */
  snapshotWork(token: number, form: SnapshotForm, answer: (text: string, tokens: readonly number[]) => void): FeedWork {
    const request: SnapshotRequest = { form, tokens: [token], mayJoinLater: true };
    this.waitingSnapshots.push(request);
    return {
      run: (over) => {
        if (request.tokens.length === 0) return this.snapshotDone(request);
        const later = this.waitingSnapshots.filter((r) => r.form === form).at(-1)!;
        if (this.serialized[form] === undefined && !this.serializing && request.mayJoinLater && later !== request) {
          // Answered in the order they were asked (tokens rise): a resume's snapshot and a request's in one
          // reveal reach the client in the same order whether or not one serialisation answered both.
          later.tokens.push(...request.tokens);
          later.tokens.sort((a, b) => a - b);
          later.mayJoinLater = false;
          return this.snapshotDone(request);
        }
        let text = this.serialized[form];
        if (text === undefined) {
          this.serializing ??= new ScreenSerialization(this.pooled, form);
          text = this.serializing.step(over);
          if (text === undefined) return false;
          this.serializing = undefined;
          this.serialized[form] = text;
        }
        answer(text, request.tokens);
        return this.snapshotDone(request);
      },
    };
  }

  /** Forgets the snapshot query `token`; a serialisation left with no query is abandoned at its next slice. */
  withdraw(token: number): void {
    for (const request of this.waitingSnapshots) {
      const at = request.tokens.indexOf(token);
      if (at >= 0) request.tokens.splice(at, 1);
    }
  }

  private snapshotDone(request: SnapshotRequest): true {
    this.waitingSnapshots.splice(this.waitingSnapshots.indexOf(request), 1);
    if (request.tokens.length === 0) this.serializing = undefined;
    const held = this.heldResize;
    this.heldResize = undefined;
    if (held) this.resize(held.cols, held.rows);
    return true;
  }

  /** Resizes the terminal, or after the serialisation under way. */
  resize(cols: number, rows: number): void {
    if (this.serializing) {
      this.heldResize = { cols, rows };
      return;
    }
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(cols, rows);
    this.serialized = {};
  }

  /**
   * Gives the terminal back to the pool, or disposes it when its parser
   * paused halfway through a piece: the next owner would go on from there.
   * Output still queued is dropped first (see ScreenBook.dispose).
   */
  release(): void {
    this.feed.drop();
    this.titleSubscription.dispose();
    this.parseWorkClamp.dispose();
    this.linkCap.dispose();
    this.pausePoints.dispose();
    if (!this.feed.pausedInPiece) screenTerminals.give(this.pooled);
    else this.term.dispose();
  }
}

/**
 * Every screen of a host, over @xterm/headless, driven by requests and
 * answering through `reply`. It runs where the screens are parsed: in the
 * screen worker, so parsing a flood of output never holds up forwarding it,
 * or inline on the host's own thread. Output is parsed later, in slices the
 * ParseScheduler shares between the screens, so each screen tracks the
 * output high-water mark it has parsed, and a query is answered only once
 * every write before it was parsed. A snapshot is serialised in the same
 * slices, a few rows each, while its screen's parse waits.
 */
export class ScreenBook {
  private readonly screens = new Map<number, BookScreen>();

  constructor(
    private readonly reply: (reply: ScreenReply) => void,
    private readonly scheduler: ParseScheduler = new ParseScheduler(),
  ) {}

  /** Never throws: a screen that does is dropped and reported, and the others go on. */
  handle(request: ScreenRequest): void {
    try {
      this.apply(request);
    } catch (error) {
      this.fail(request.id, error);
    }
  }

  private apply(request: ScreenRequest): void {
    if (request.op === 'open') return this.open(request);
    const screen = this.screens.get(request.id);
    switch (request.op) {
      case 'write':
        if (screen) this.write(screen, request.data, request.seq);
        return;
      case 'resize':
        screen?.resize(request.cols, request.rows);
        return;
      case 'query':
        // A query for a screen already gone is never answered: its asker disposed it.
        if (screen) this.query(screen, request.token, request.want);
        return;
      case 'dispose':
        return this.dispose(request.id, request.token);
      case 'withdraw':
        screen?.withdraw(request.token);
        return;
    }
  }

  private fail(id: number, error: unknown): void {
    const screen = this.screens.get(id);
    this.screens.delete(id);
    screen?.feed.drop(); // its queries are answered by the host on 'failed'
    screen?.term.dispose(); // not back to the pool: its state is whatever the failure left
    this.reply({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  }

  private open({ op: _op, id, ...shape }: Extract<ScreenRequest, { op: 'open' }>): void {
    const screen = new BookScreen(shape, this.scheduler, this.reply, id, (error) => {
      if (this.screens.get(id) === screen) this.fail(id, error);
    });
    this.screens.set(id, screen);
  }

  private write(screen: BookScreen, data: string | Uint8Array, seq: number): void {
    screen.feed.write(screen.escapeStrings.filter(data), seq);
  }

  /**
   * Runs `answer` once every write so far is parsed, in order with the
   * output. An idle screen is already there: it answers at once (a subscribe
   * to an idle screen, a reconnect storm), whatever other screens are parsing.
   */
  private whenParsed(screen: BookScreen, answer: () => void): void {
    if (!screen.feed.whenParsed(answer)) answer();
  }

  /**
   * A snapshot of an idle screen is taken at once, for a slice: its kept
   * text (a reconnect storm, a Subscribe churn) or a small screen is
   * answered then, and a larger one goes on for SNAPSHOT_NEXT_SLICES slices
   * of work before the other terminals', then in the screen's turns. One
   * behind output still to parse is serialised in the screen's turns, in
   * order with its output (BookScreen.snapshotWork).
   */
  private query(screen: BookScreen, token: number, want: ScreenQuery): void {
    const form = SNAPSHOT_FORMS[want];
    if (!form) return this.whenParsed(screen, () => this.answer(screen, token, want as 'seq' | 'text'));
    const work = screen.snapshotWork(token, form, (text, [first, ...also]) => this.reply({ kind: 'answer', token: first!, seq: screen.parsed, text, size: { cols: screen.term.cols, rows: screen.term.rows }, ...(also.length > 0 ? { also } : {}) }));
    if (!screen.feed.idle) return screen.feed.queueWork(work);
    if (!work.run(this.scheduler.sliceFromNow(screen.feed.sliceMs))) screen.feed.queueWork(work, SNAPSHOT_NEXT_SLICES);
  }

  private answer(screen: BookScreen, token: number, want: 'seq' | 'text'): void {
    this.reply({ kind: 'answer', token, seq: screen.parsed, ...(want === 'text' ? { text: screenText(screen.term) } : {}) });
  }

  private dispose(id: number, token: number): void {
    const screen = this.screens.get(id);
    if (!screen) return this.reply({ kind: 'answer', token, seq: 0, text: '' });
    this.screens.delete(id);
    // Output nobody will read is dropped, not parsed; the queries that waited on it are answered now.
    for (const answer of screen.feed.drop()) answer();
    const text = screenText(screen.term);
    screen.release();
    this.reply({ kind: 'answer', token, seq: screen.parsed, text });
  }
}
