import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ScreenBook, type ScreenQuery, type ScreenReply, type ScreenRequest, type ScreenShape, type ScreenSize } from './screen-book.js';

/**
 * Where a host's screens are parsed. 'worker': one worker thread per process,
 * shared by every runtime in it, so parsing a flood of output runs beside
 * forwarding it instead of in turn with it (the default). 'inline': on the
 * host's own thread, for embedders that must not start threads and for the
 * exactly-once model test, whose thousands of schedules would otherwise each
 * wait on thread hops.
 */
export type ScreenThreadKind = 'worker' | 'inline';

type Answer = (seq: number, text: string | undefined, size: ScreenSize | undefined) => void;

/** What a screen's owner hears besides answers. */
export interface ScreenListeners {
  title(title: string): void;
  failed(message: string): void;
  /** The screen's parse work queued went past its maxBacklogMs (true), or back under half of it. */
  behind(behind: boolean, backlogMs: number): void;
}

/**
 * The host's side of a screen thread: hands screens their requests in order
 * and routes the answers and title changes back. Answers never come
 * synchronously, wherever the screens run.
 */
export class ScreenThread {
  private nextId = 1;
  private nextToken = 1;
  private readonly answers = new Map<number, { readonly id: number; readonly answer: Answer }>();
  private readonly listeners = new Map<number, ScreenListeners>();

  private constructor(
    private readonly post: (request: ScreenRequest) => void,
    /** Tells the carrier whether answers are awaited (a worker keeps the process alive only then). */
    private readonly awaiting: (yes: boolean) => void = () => {},
  ) {}

  /** Screens parsed on this thread; a fresh book each time. */
  static inline(): ScreenThread {
    let thread!: ScreenThread;
    const book = new ScreenBook((reply) => queueMicrotask(() => thread.received(reply)));
    thread = new ScreenThread((request) => book.handle(request));
    return thread;
  }

  /** Screens parsed in the process's screen worker, started on first use. */
  static worker(): ScreenThread {
    return (sharedWorkerThread ??= ScreenThread.overWorker(newScreenWorker()));
  }

  static of(kind: ScreenThreadKind): ScreenThread {
    return kind === 'worker' ? ScreenThread.worker() : ScreenThread.inline();
  }

  open(shape: ScreenShape, listeners: ScreenListeners): number {
    const id = this.nextId++;
    this.listeners.set(id, listeners);
    this.post({ op: 'open', id, ...shape });
    return id;
  }

  write(id: number, data: string | Uint8Array, seq: number): void {
    this.post({ op: 'write', id, data, seq });
  }

  resize(id: number, cols: number, rows: number): void {
    this.post({ op: 'resize', id, cols, rows });
  }

  /** Returns the query's token, for withdraw. */
  query(id: number, want: ScreenQuery, answer: Answer): number {
    const token = this.expect(id, answer);
    this.post({ op: 'query', id, token, want });
    return token;
  }

  /** Forgets a snapshot query not answered yet: its answer never comes, and the screen does not serialise for it. */
  withdraw(id: number, token: number): void {
    if (!this.answers.has(token)) return;
    this.settle(token);
    this.post({ op: 'withdraw', id, token });
  }

  /** Frees the screen; resolves with the lines it last showed. */
  dispose(id: number): Promise<string> {
    this.listeners.delete(id);
    return new Promise((resolve) => {
      const token = this.expect(id, (_seq, text) => resolve(text ?? ''));
      this.post({ op: 'dispose', id, token });
    });
  }

  private expect(id: number, answer: Answer): number {
    const token = this.nextToken++;
    if (this.answers.size === 0) this.awaiting(true);
    this.answers.set(token, { id, answer });
    return token;
  }

  private received(reply: ScreenReply): void {
    if (reply.kind === 'title') return this.listeners.get(reply.id)?.title(reply.title);
    if (reply.kind === 'behind') return this.listeners.get(reply.id)?.behind(reply.behind, reply.backlogMs);
    if (reply.kind === 'failed') return this.failed(reply.id, reply.message);
    for (const token of [reply.token, ...(reply.also ?? [])]) {
      const pending = this.answers.get(token);
      if (!pending) continue;
      this.settle(token);
      pending.answer(reply.seq, reply.text, reply.size);
    }
  }

  /**
   * A screen that failed answers nothing more. Its owner is told first, then
   * what waited on it is answered with a NaN seq and no text, so no promise
   * hangs on a screen that is gone.
   */
  private failed(id: number, message: string): void {
    const listeners = this.listeners.get(id);
    this.listeners.delete(id);
    listeners?.failed(message);
    for (const [token, pending] of this.answers) {
      if (pending.id !== id) continue;
      this.settle(token);
      pending.answer(Number.NaN, undefined, undefined);
    }
  }

  private settle(token: number): void {
    this.answers.delete(token);
    if (this.answers.size === 0) this.awaiting(false);
  }

  private static overWorker(worker: Worker): ScreenThread {
    const thread = new ScreenThread(
      (request) => {
        // Bytes are copied, not moved: the host still holds them (queued Output), and a moved
        // buffer stays counted against this thread until the worker collects it (a 48 MiB flood
        // kept 16 MiB more here). A piece of a larger buffer is cut out first, so only it is copied.
        if (request.op === 'write' && typeof request.data !== 'string' && request.data.byteLength !== request.data.buffer.byteLength) {
          worker.postMessage({ ...request, data: request.data.slice() });
        } else worker.postMessage(request);
      },
      (yes) => (yes ? worker.ref() : worker.unref()),
    );
    worker.on('message', (reply: ScreenReply) => thread.received(reply));
    // Every screen of the process is in there: a host cannot serve without it.
    worker.on('error', (error) => {
      throw new Error(`termwire: the screen worker failed: ${error.message}`, { cause: error });
    });
    worker.unref();
    return thread;
  }
}

let sharedWorkerThread: ScreenThread | undefined;

/**
 * The screen worker's young generation, in MiB; V8 would size it from the machine's memory. The worker's
 * garbage is short-lived parse strings, which a small nursery collects as well, so the host holds less
 * while many terminals print (the soak's 60 printers) and parses as fast (npm run bench -- attach).
 */
const SCREEN_WORKER_YOUNG_GENERATION_MB = 6;

function newScreenWorker(): Worker {
  const options = { resourceLimits: { maxYoungGenerationSizeMb: SCREEN_WORKER_YOUNG_GENERATION_MB } };
  // The build's bundle of the worker starts in half the time of its few hundred modules (compat/baseline/bundle-entries.ts).
  if (existsSync(fileURLToPath(new URL('../../bundle/screen-worker.js', import.meta.url)))) return new Worker(new URL('../../bundle/screen-worker.js', import.meta.url), options);
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./screen-worker.js', import.meta.url), options);
  // Running from the TypeScript sources (vitest, tsx): the worker loads them through tsx too.
  const entry = new URL('./screen-worker.ts', import.meta.url).href;
  return new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`, { ...options, eval: true });
}
