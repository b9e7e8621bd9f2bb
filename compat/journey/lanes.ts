/** Thrown into a task's slot when an earlier task of the same run failed: it never started. */
const NOT_STARTED = Symbol('not started');

/**
 * At most `size` pairings at once, across every walk that shares these lanes:
 * the gate's journeys and its capability-off journeys queue in one set, so the
 * second fills the lanes the first leaves idle near its end. Tasks start in the
 * order they were handed in.
 */
export class Lanes {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  private readonly idlers: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = Math.max(1, size);
  }

  /**
   * Runs tasks in these lanes; results in task order. After a failure no further
   * task of this run starts, and the first failure is thrown only once every
   * running task has finished, so nothing is still using what the caller tears down.
   */
  async run<T>(tasks: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
    let failed = false;
    const settled = await Promise.allSettled(
      tasks.map(async (task) => {
        await this.acquire();
        try {
          if (failed) throw NOT_STARTED;
          return await task();
        } catch (error) {
          failed = true;
          throw error;
        } finally {
          this.release();
        }
      }),
    );
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected' && s.reason !== NOT_STARTED);
    if (failure) throw failure.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }

  /** Resolves once no task runs in these lanes and none waits for one. */
  async idle(): Promise<void> {
    while (this.free < Math.max(1, this.size) || this.waiting.length) await new Promise<void>((resolve) => this.idlers.push(resolve));
  }

  private acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
    if (this.free === Math.max(1, this.size)) for (const idler of this.idlers.splice(0)) idler();
  }
}
