import headless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';

// Both packages ship CommonJS; a default import is the portable way to reach them from ESM.
const { Terminal } = headless;
const { SerializeAddon } = serializeAddon;

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
  private readonly term: InstanceType<typeof Terminal>;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private parsed = 0;
  /** Writes and barriers handed to xterm whose callbacks have not run yet. */
  private inFlight = 0;
  private disposed = false;
  private lastText = '';
  /**
   * The last serialisation and the scrollback it was taken with, until the
   * screen changes: a parsed write or a resize drops it. A reconnect storm or
   * a snapshot flood then serialises an unchanged screen once, not per request.
   */
  private serialized: { readonly text: string; readonly scrollback: number } | undefined;
  private readonly settling = new Set<(parsedSeq: number) => void>();

  constructor(options: ScreenOptions) {
    this.term = new Terminal({ cols: options.cols, rows: options.rows, scrollback: options.scrollback, allowProposedApi: true });
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer);
  }

  /** The high-water mark of output the screen has parsed. */
  get parsedSeq(): number {
    return this.parsed;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Feeds output whose high-water mark after it is `seqAfter`. */
  write(data: string | Uint8Array, seqAfter: number): void {
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
    const sub = this.term.onTitleChange(cb);
    return () => sub.dispose();
  }

  /** The screen and scrollback as escape sequences that rebuild it (the snapshot text). */
  serialize(): string {
    const scrollback = this.term.options.scrollback ?? 0;
    if (this.serialized?.scrollback !== scrollback) this.serialized = { text: this.serializer.serialize(), scrollback };
    return this.serialized.text;
  }

  /** The visible lines, each trimmed right, trailing blank lines dropped. */
  text(): string {
    return this.disposed ? this.lastText : screenText(this.term);
  }

  /** Frees the screen. Waiters for a parse are answered now (xterm drops pending write callbacks), and the text stays readable. */
  dispose(): void {
    if (this.disposed) return;
    this.lastText = screenText(this.term);
    this.disposed = true;
    this.term.dispose();
    for (const resolve of this.settling) resolve(this.parsed);
    this.settling.clear();
  }
}

type HeadlessTerminal = InstanceType<typeof Terminal>;

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
