import type { Scheduler } from './options.js';

export interface AckBatcherOptions {
  readonly ackBatchBytes: number;
  readonly ackDelayMs: number;
  readonly scheduler: Scheduler;
}

/**
 * Batches Output credit returned to the host: one Ack {bytes} once
 * `ackBatchBytes` are pending, or `ackDelayMs` after the first unacked byte,
 * whichever comes first.
 */
export class AckBatcher {
  private pending = 0;
  private timer: unknown;
  private connectionEpoch = 0;

  constructor(
    private readonly opts: AckBatcherOptions,
    private readonly sendAck: (bytes: number) => void,
  ) {}

  get pendingBytes(): number {
    return this.pending;
  }

  /** Advances on discard(): credit for output of an older connection must not reach the new one. */
  get epoch(): number {
    return this.connectionEpoch;
  }

  /** Credits bytes the screen has parsed; `epoch` is the one current when they arrived. */
  consumed(bytes: number, epoch = this.connectionEpoch): void {
    if (bytes <= 0 || epoch !== this.connectionEpoch) return;
    this.pending += bytes;
    if (this.pending >= this.opts.ackBatchBytes) {
      this.flush();
      return;
    }
    if (this.timer === undefined) this.timer = this.opts.scheduler.setTimeout(() => this.flush(), this.opts.ackDelayMs);
  }

  flush(): void {
    this.cancelTimer();
    if (this.pending === 0) return;
    const bytes = this.pending;
    this.pending = 0;
    this.sendAck(bytes);
  }

  /** Forgets pending credit: on a new connection the host starts a fresh window. */
  discard(): void {
    this.cancelTimer();
    this.pending = 0;
    this.connectionEpoch++;
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.opts.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
