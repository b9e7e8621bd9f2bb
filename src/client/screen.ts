import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

// RIS (full reset): queued through the parser like any output, so it cannot
// overtake writes still waiting in xterm's async write buffer (reset() would).
const FULL_RESET = '\x1bc';

/**
 * The client's own model of one terminal's screen. xterm parses writes
 * asynchronously, and resize() is synchronous, so every operation goes through
 * one ordered queue; whenIdle() resolves when everything queued so far is applied.
 */
export class LocalScreen {
  private readonly term: HeadlessTerminal;
  private tail: Promise<void> = Promise.resolve();
  private disposed = false;
  /** The first error an operation threw; the queue keeps going so one bad write cannot wedge the screen. */
  lastError: unknown;

  constructor(cols: number, rows: number, scrollback: number) {
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  write(text: string): void {
    if (this.disposed) return;
    this.enqueue(() => this.parse(text));
  }

  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    this.enqueue(() => {
      if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
    });
  }

  /** Replaces the whole screen with a snapshot's serialized text at the snapshot's size. */
  replace(text: string, cols: number, rows: number): void {
    if (this.disposed) return;
    this.resize(cols, rows);
    this.enqueue(() => this.parse(FULL_RESET + text));
  }

  whenIdle(): Promise<void> {
    return this.tail;
  }

  /** The visible lines, each trimmed on the right. Reflects what has been parsed so far. */
  lines(): string[] {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let row = 0; row < this.term.rows; row++) out.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true).trimEnd() ?? '');
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.enqueue(() => this.term.dispose());
  }

  private parse(text: string): Promise<void> {
    return new Promise((resolve) => this.term.write(text, resolve));
  }

  private enqueue(op: () => void | Promise<void>): void {
    this.tail = this.tail.then(op).catch((error: unknown) => {
      this.lastError ??= error;
    });
  }
}
