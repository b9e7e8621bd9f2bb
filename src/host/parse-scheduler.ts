/** What a screen's parse work is to the scheduler: one terminal's queue of output. */
export interface ParseJob {
  /** Longest stretch of work this job may do before the others get their turn (screenParseSliceMs). */
  readonly sliceMs: number;
  /**
   * Works until `slice.over()` or until nothing is left. 'idle': nothing
   * left; 'more': stopped at the end of its slice; 'next': stopped there, and
   * goes on before the round (work a request waits for, ParseScheduler.readyNext);
   * a promise: the parse paused inside a piece and the job may go on once it settles.
   */
  runSlice(slice: ParseSlice): ParseOutcome;
  /** The job threw; it is out of the round and is not served again. */
  failed(error: unknown): void;
}

export type ParseOutcome = 'idle' | 'more' | 'next' | Promise<unknown>;

export interface ParseSlice {
  /** Whether the current job has used its slice. */
  over(): boolean;
  /** Wall time, in ms: slices are shared by it. */
  now(): number;
  /** CPU time the process has used, in ms: what a parse cost when the machine took the thread away meanwhile. */
  cpu(): number;
}

export interface ParseSchedulerClock {
  now(): number;
  cpu(): number;
  /** Runs `task` in a later turn of the event loop, after I/O already waiting (the requests of other screens). */
  defer(task: () => void): void;
}

const realClock: ParseSchedulerClock = { now: () => performance.now(), cpu: processCpuMs, defer: (task) => void setImmediate(task) };

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Shares the one thread that parses every screen between the terminals,
 * round-robin in slices of time, not bytes: a job runs for its sliceMs, then
 * goes to the back of the round, and between any two slices the thread returns
 * to its event loop, so a request (another terminal's snapshot, its input's
 * echo) waits at most one slice of someone else's parsing. xterm's own write
 * buffer gave each busy terminal a 12 ms slice per turn of the loop, all of
 * them before the loop read a request: with 60 printers that was 60 slices
 * (Subscribe p99 1.7 s). A terminal whose output costs more than the others
 * only gets its share, so it falls behind alone, and the host holds its
 * program (screenBacklogBytes). A snapshot's serialisation takes its
 * screen's turns in the same way (ScreenFeed.queueWork).
 */
export class ParseScheduler {
  private readonly round: ParseJob[] = [];
  private readonly waiting = new Set<ParseJob>();
  private scheduled = false;
  private sliceEnd = -Infinity;
  private readonly slice: ParseSlice = { over: () => this.clock.now() >= this.sliceEnd, now: () => this.clock.now(), cpu: () => this.clock.cpu() };

  constructor(private readonly clock: ParseSchedulerClock = realClock) {}

  /** The job has work: it joins the end of the round, unless it is in it already or waits on a paused parse. */
  ready(job: ParseJob): void {
    if (this.waiting.has(job) || this.round.includes(job)) return;
    this.round.push(job);
    this.schedule();
  }

  /**
   * The job has work that a request is waiting for and already had a slice
   * as it came (a snapshot of an idle screen, ScreenBook): it goes next, and
   * goes on next while it says so ('next'), then takes its turns at the end
   * of the round like any other.
   */
  readyNext(job: ParseJob): void {
    if (this.waiting.has(job) || this.round.includes(job)) return;
    this.round.unshift(job);
    this.schedule();
  }

  /** The job is gone: it leaves the round. */
  remove(job: ParseJob): void {
    const at = this.round.indexOf(job);
    if (at >= 0) this.round.splice(at, 1);
    this.waiting.delete(job);
  }

  /** A slice for work done as a request comes, outside the round (a snapshot of an idle screen): over `sliceMs` from now. */
  sliceFromNow(sliceMs: number): () => boolean {
    const end = this.clock.now() + sliceMs;
    return () => this.clock.now() >= end;
  }

  /** Wall time on the scheduler's clock, in ms. */
  now(): number {
    return this.clock.now();
  }

  /** Whether the job running now has used its slice: a pause point in xterm's parse asks this. */
  sliceOver(): boolean {
    return this.slice.over();
  }

  private schedule(): void {
    if (this.scheduled || this.round.length === 0) return;
    this.scheduled = true;
    this.clock.defer(() => this.turn());
  }

  /** One slice of the job at the head of the round. */
  private turn(): void {
    this.scheduled = false;
    const job = this.round.shift();
    if (!job) return;
    this.sliceEnd = this.clock.now() + job.sliceMs;
    let outcome: ParseOutcome;
    try {
      outcome = job.runSlice(this.slice);
    } catch (error) {
      outcome = 'idle';
      job.failed(error);
    }
    this.sliceEnd = -Infinity;
    if (outcome === 'more') this.round.push(job);
    else if (outcome === 'next') this.round.unshift(job);
    else if (outcome !== 'idle') {
      this.waiting.add(job);
      void outcome.then(() => {
        if (this.waiting.delete(job)) this.ready(job);
      });
    }
    this.schedule();
  }
}
