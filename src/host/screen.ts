import headless from '@xterm/headless';
import { type HeadlessTerminal, type PooledTerminal, screenTerminals } from '../screen/terminal-pool.js';

// @xterm/headless ships CommonJS; a default import is the portable way to reach it from ESM.
const { Terminal } = headless;

export interface ScreenOptions {
  readonly cols: number;
  readonly rows: number;
  /** Scrollback lines kept (and serialised into snapshots). */
  readonly scrollback: number;
}

/**
 * The host's model of a terminal's screen, over @xterm/headless. xterm parses
 * asynchronously, so the model tracks the output high-water mark of what it has
 * parsed: a snapshot is serialised only once everything up to its seq was parsed.
 */
export class ScreenModel {
  private readonly pooled: PooledTerminal;
  private parsed = 0;
  /** Writes and barriers handed to xterm whose callbacks have not run yet. */
  private inFlight = 0;
  private disposed = false;
  private lastText = '';
  /** The size when disposed: the terminal may serve another screen by then. */
  private lastSize = { cols: 0, rows: 0 };
  /** Listeners this screen put on its terminal, removed on dispose so the terminal's next owner is not heard. */
  private readonly listeners = new Set<{ dispose(): void }>();
  /**
   * The last serialisation and the scrollback it was taken with, until the
   * screen changes: a parsed write or a resize drops it. A reconnect storm or
   * a snapshot flood then serialises an unchanged screen once, not per request.
   */
  private serialized: { readonly text: string; readonly scrollback: number } | undefined;
  private readonly settling = new Set<(parsedSeq: number) => void>();

  constructor(options: ScreenOptions) {
    this.pooled = screenTerminals.take(options.cols, options.rows, options.scrollback);
  }

  private get term(): HeadlessTerminal {
    return this.pooled.term;
  }

  /** The high-water mark of output the screen has parsed. */
  get parsedSeq(): number {
    return this.parsed;
  }

  get cols(): number {
    return this.disposed ? this.lastSize.cols : this.term.cols;
  }

  get rows(): number {
    return this.disposed ? this.lastSize.rows : this.term.rows;
  }

  /** Feeds output whose high-water mark after it is `seqAfter`. */
  write(data: string, seqAfter: number): void {
    if (this.disposed) return;
    this.inFlight++;
    this.term.write(data, () => {
      this.inFlight--;
      this.parsed = seqAfter;
      this.serialized = undefined;
    });
  }

  /**
   * Calls `cb` once every write made before this call is parsed. xterm runs
   * write callbacks in order, so an empty write is a barrier. When nothing is
   * in flight the screen is already there: `cb` runs in a microtask instead of
   * waiting for xterm's next parse timer (a subscribe to an idle screen, a
   * reconnect storm). xterm parses only on a timer, so nothing written after
   * this call can reach the screen before that microtask.
   */
  whenParsed(cb: (parsedSeq: number) => void): void {
    if (this.disposed) return;
    if (this.inFlight === 0) {
      queueMicrotask(() => {
        if (!this.disposed) cb(this.parsed);
      });
      return;
    }
    this.inFlight++;
    this.term.write('', () => {
      this.inFlight--;
      cb(this.parsed);
    });
  }

  /** Resolves once everything written so far is parsed; at once for a disposed screen, whose writes will never be. */
  settled(): Promise<number> {
    if (this.disposed) return Promise.resolve(this.parsed);
    return new Promise((resolve) => {
      this.settling.add(resolve);
      this.whenParsed((seq) => {
        this.settling.delete(resolve);
        resolve(seq);
      });
    });
  }

  resize(cols: number, rows: number): void {
    if (this.disposed || (cols === this.term.cols && rows === this.term.rows)) return;
    this.term.resize(cols, rows);
    this.serialized = undefined;
  }

  onTitle(cb: (title: string) => void): () => void {
    if (this.disposed) return () => {};
    const sub = this.term.onTitleChange(cb);
    this.listeners.add(sub);
    return () => {
      this.listeners.delete(sub);
      sub.dispose();
    };
  }

  /** The screen and scrollback as escape sequences that rebuild it (the snapshot text). A disposed screen has none. */
  serialize(): string {
    if (this.disposed) throw new Error('ScreenModel.serialize() after dispose(): the screen is gone');
    const scrollback = this.term.options.scrollback ?? 0;
    if (this.serialized?.scrollback !== scrollback) this.serialized = { text: this.pooled.serializer.serialize(), scrollback };
    return this.serialized.text;
  }

  /** The visible lines, each trimmed right, trailing blank lines dropped. */
  text(): string {
    return this.disposed ? this.lastText : screenText(this.term);
  }

  /**
   * Frees the screen: its terminal goes back to the pool, or is disposed when
   * writes are still queued (xterm then drops them and their callbacks, rather
   * than parse output nobody will read). Waiters for a parse are answered now,
   * and the text and size stay readable.
   */
  dispose(): void {
    if (this.disposed) return;
    this.lastText = screenText(this.term);
    this.lastSize = { cols: this.term.cols, rows: this.term.rows };
    this.disposed = true;
    for (const listener of this.listeners) listener.dispose();
    this.listeners.clear();
    if (this.inFlight === 0) screenTerminals.give(this.pooled);
    else this.term.dispose();
    for (const resolve of this.settling) resolve(this.parsed);
    this.settling.clear();
  }
}

/** The visible lines of any headless terminal; tests use it on a terminal rebuilt from a snapshot. */
export function screenText(term: HeadlessTerminal): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < term.rows; y++) {
    lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true).trimEnd() ?? '');
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** Rebuilds a screen from snapshot text in a fresh terminal of the given size and returns its text. */
export async function replaySnapshot(snapshot: string, cols: number, rows: number): Promise<string> {
  const term = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(snapshot, resolve));
  const text = screenText(term);
  term.dispose();
  return text;
}
