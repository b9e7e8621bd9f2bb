import { EscapeStringCap } from '../screen/escape-string-cap.js';
import { clampParseWork } from '../screen/parse-work-clamp.js';
import { FULL_RESET, type HeadlessTerminal, type PooledTerminal, screenTerminals } from '../screen/terminal-pool.js';

/**
 * The client's own model of one terminal's screen. Writes go straight into
 * xterm's own ordered write buffer, so a burst of output is parsed in one
 * pass; synchronous operations (resize, dispose) ride on an empty write's
 * callback to keep their place in that order. Handing xterm one write at a
 * time and waiting for each parse cost a timer tick per chunk (about 1 ms).
 */
export class LocalScreen {
  private readonly pooled: PooledTerminal;
  private disposed = false;
  /** What the screen showed when its terminal went back to the pool, which may hand it to another screen. */
  private final: { readonly cols: number; readonly rows: number; readonly lines: string[] } | undefined;
  /** The first error an operation threw; later operations still run, so one bad write cannot wedge the screen. */
  lastError: unknown;
  /** Counts that loop per unit (REP, scrolls) are cut as the host cuts them: ten bytes from a hostile host held the client's thread for seconds. */
  private readonly parseWorkClamp: { dispose(): void };

  constructor(cols: number, rows: number, scrollback: number) {
    this.pooled = screenTerminals.take(cols, rows, scrollback);
    this.parseWorkClamp = clampParseWork(this.term);
  }

  private get term(): HeadlessTerminal {
    return this.pooled.term;
  }

  /** Overlong OSC and DCS strings are cut before xterm collects them (see escape-string-cap.ts). */
  private readonly escapeStrings = new EscapeStringCap();

  get cols(): number {
    return this.final?.cols ?? this.term.cols;
  }

  get rows(): number {
    return this.final?.rows ?? this.term.rows;
  }

  /**
   * Queues text for the parser; `onParsed` runs once it is on the screen.
   * False when xterm refused it (it discards writes past 50 MB pending, which
   * only a host that does not flow-control can cause): the screen has a hole.
   */
  write(text: string, onParsed?: () => void): boolean {
    if (this.disposed) return true;
    try {
      this.term.write(this.escapeStrings.filter(text), onParsed && (() => this.guard(onParsed)));
      return true;
    } catch (error) {
      this.lastError ??= error;
      return false;
    }
  }

  resize(cols: number, rows: number): void {
    this.afterQueued(() => {
      if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
    });
  }

  /** Replaces the whole screen with a snapshot's serialized text at the snapshot's size. */
  replace(text: string, cols: number, rows: number): boolean {
    this.resize(cols, rows);
    return this.write(FULL_RESET + text);
  }

  /** Resolves once everything written so far has been parsed. */
  whenIdle(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return new Promise((resolve) => this.term.write('', resolve));
  }

  /** The visible lines, each trimmed on the right. Reflects what has been parsed so far. */
  lines(): string[] {
    if (this.final) return [...this.final.lines];
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let row = 0; row < this.term.rows; row++) out.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true).trimEnd() ?? '');
    return out;
  }

  /** Frees the screen once everything queued is parsed: its terminal goes back to the pool; lines() keeps showing its last screen. */
  dispose(): void {
    if (this.disposed) return;
    this.afterQueued(() => {
      this.final = { cols: this.term.cols, rows: this.term.rows, lines: this.lines() };
      this.parseWorkClamp.dispose();
      screenTerminals.give(this.pooled);
    });
    this.disposed = true;
  }

  /** Runs `op` after every write queued so far has been parsed. */
  private afterQueued(op: () => void): void {
    if (this.disposed) return;
    this.term.write('', () => this.guard(op));
  }

  private guard(op: () => void): void {
    try {
      op();
    } catch (error) {
      this.lastError ??= error;
    }
  }
}
