import type { SnapshotForm } from '../screen/serialize-screen.js';
import type { ScreenSize } from './screen-book.js';
import { DEFAULT_HOST_OPTIONS } from './options.js';
import { ScreenThread } from './screen-thread.js';

export type { ScreenSize } from './screen-book.js';

export { replaySnapshot, screenText } from './screen-text.js';

export interface ScreenOptions {
  readonly cols: number;
  readonly rows: number;
  /** Scrollback lines kept (and serialised into snapshots). */
  readonly scrollback: number;
  /** OSC 8 links remembered; past it the oldest is forgotten (its cells snapshot plain). Default DEFAULT_HOST_OPTIONS.maxScreenLinks. */
  readonly maxLinks?: number;
  /** Longest stretch of parsing before the other screens of the thread get their turn. Default DEFAULT_HOST_OPTIONS.screenParseSliceMs. */
  readonly parseSliceMs?: number;
  /** Parse work queued, in ms at the screen's measured pace, past which onBehind hears it. Default DEFAULT_HOST_OPTIONS.maxScreenBacklogMs. */
  readonly maxBacklogMs?: number;
}

/**
 * The host's model of a terminal's screen. It is parsed on a screen thread
 * (see ScreenThread), so everything it answers comes later: a snapshot is
 * taken there once everything written before the request was parsed, and
 * carries the output high-water mark it matches.
 */
export class ScreenModel {
  private readonly id: number;
  private size: ScreenSize;
  private disposed = false;
  private lastText: Promise<string> | undefined;
  private lastSeq = 0;
  private readonly titleListeners = new Set<(title: string) => void>();
  private readonly failureListeners = new Set<(message: string) => void>();
  private readonly behindListeners = new Set<(behind: boolean, backlogMs: number) => void>();
  /** Why the screen thread dropped this screen, if it did. */
  failure: string | undefined;

  constructor(
    options: ScreenOptions,
    private readonly thread: ScreenThread = ScreenThread.inline(),
  ) {
    this.size = { cols: options.cols, rows: options.rows };
    const { cols, rows, scrollback } = options;
    const shape = { cols, rows, scrollback, maxLinks: options.maxLinks ?? DEFAULT_HOST_OPTIONS.maxScreenLinks, sliceMs: options.parseSliceMs ?? DEFAULT_HOST_OPTIONS.screenParseSliceMs, maxBacklogMs: options.maxBacklogMs ?? DEFAULT_HOST_OPTIONS.maxScreenBacklogMs };
    this.id = thread.open(shape, {
      title: (title) => {
        for (const cb of [...this.titleListeners]) cb(title);
      },
      failed: (message) => this.failedWith(message),
      behind: (behind, backlogMs) => {
        for (const cb of [...this.behindListeners]) cb(behind, backlogMs);
      },
    });
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  /** Feeds output whose high-water mark after it is `seqAfter`. The bytes must not change afterwards. */
  write(data: string | Uint8Array, seqAfter: number): void {
    if (!this.disposed) this.thread.write(this.id, data, seqAfter);
  }

  /** Calls `cb`, never synchronously, with the parsed seq once every write before this call is parsed; never once disposed. */
  whenParsed(cb: (parsedSeq: number) => void): void {
    this.ask('seq', (seq) => cb(seq));
  }

  /**
   * Like whenParsed, with the snapshot text of the screen at that seq (the
   * screen and scrollback as escape sequences that rebuild it) and the size it
   * was serialised at. That size is the screen thread's: xterm applies a resize
   * at once, ahead of writes it has not parsed yet, so a resize made after this
   * call may or may not be in the snapshot. `form`: what the text is for
   * (SnapshotForm); the wire's unless the stream negotiated snapshotRepaint.
   * Returns a withdraw: after it `cb` is never called, and the screen does
   * not serialise for it.
   */
  snapshot(cb: (parsedSeq: number, text: string, size: ScreenSize) => void, form: SnapshotForm = 'wire'): () => void {
    const token = this.ask(form === 'wire' ? 'snapshot' : 'repaintSnapshot', (seq, text, size) => cb(seq, text ?? '', size ?? this.size));
    return () => {
      if (token !== undefined && !this.disposed) this.thread.withdraw(this.id, token);
    };
  }

  /** Resolves with the parsed seq once everything written so far is parsed; for a screen disposed meanwhile or before, with what it had parsed (its other writes never will be). */
  settled(): Promise<number> {
    if (this.disposed) return Promise.resolve(this.lastSeq);
    return new Promise((resolve) => this.thread.query(this.id, 'seq', (seq) => resolve(this.track(seq))));
  }

  /** The visible lines once everything written so far is parsed, each trimmed right, trailing blank lines dropped; the last ones shown once disposed. */
  text(): Promise<string> {
    if (this.lastText) return this.lastText;
    return new Promise((resolve) => this.thread.query(this.id, 'text', (_seq, text) => resolve(text ?? '')));
  }

  resize(cols: number, rows: number): void {
    if (this.disposed || (cols === this.size.cols && rows === this.size.rows)) return;
    this.size = { cols, rows };
    this.thread.resize(this.id, cols, rows);
  }

  onTitle(cb: (title: string) => void): () => void {
    this.titleListeners.add(cb);
    return () => this.titleListeners.delete(cb);
  }

  /** Calls `cb` when the screen's queued parse work goes past maxBacklogMs (true, with the estimate), and when it is back under half of it. */
  onBehind(cb: (behind: boolean, backlogMs: number) => void): () => void {
    this.behindListeners.add(cb);
    return () => this.behindListeners.delete(cb);
  }

  /** Calls `cb` if the screen thread drops this screen (it threw); the screen is then as if disposed, with no text. */
  onFailed(cb: (message: string) => void): () => void {
    this.failureListeners.add(cb);
    return () => this.failureListeners.delete(cb);
  }

  /** Frees the screen. Waiters for a parse are answered now; the text it last showed stays readable. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.titleListeners.clear();
    this.lastText = this.thread.dispose(this.id);
  }

  private ask(want: 'seq' | 'snapshot' | 'repaintSnapshot', cb: (seq: number, text: string | undefined, size: ScreenSize | undefined) => void): number | undefined {
    if (this.disposed) return undefined;
    return this.thread.query(this.id, want, (seq, text, size) => {
      if (!this.disposed) cb(this.track(seq), text, size);
    });
  }

  /** The highest parsed seq heard; a failed screen's NaN leaves it as it was. */
  private track(seq: number): number {
    if (seq > this.lastSeq) this.lastSeq = seq;
    return this.lastSeq;
  }

  private failedWith(message: string): void {
    this.failure = message;
    this.disposed = true;
    this.lastText = Promise.resolve('');
    this.titleListeners.clear();
    for (const cb of [...this.failureListeners]) cb(message);
    this.failureListeners.clear();
  }
}
