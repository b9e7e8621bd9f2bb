import { RateBucket } from './rate-bucket.js';

/** A start's turn: `run` in a later turn of the event loop, `afterMs` from now at the earliest. */
export type ScheduleTurn = (run: () => void, afterMs: number) => void;

const nextTurnOfTheLoop: ScheduleTurn = (run, afterMs) => (afterMs > 0 ? setTimeout(run, afterMs) : setImmediate(run));

/**
 * Terminal starts, one per turn of the event loop and at most
 * `maxTerminalStartsPerSecond` (bursts of a quarter second's worth).
 * Starting a terminal forks a process, which blocks this thread (about 10 ms
 * on a quiet machine, far more on a busy one), and the program it starts
 * (a shell reading its rc files) competes with the host for the cores: a
 * burst of starts delays every other terminal's snapshots and echo. A start
 * that finds the turn taken or the rate spent waits for a turn of its own; the
 * connections waiting take turns in the order they asked (one start each,
 * then to the back), so other connections' frames are read between two
 * starts.
 */
export class StartTurns {
  private usedThisTurn = false;
  private turnScheduled = false;
  /** Each is called when its turn comes; one that starts no terminal (used) passes the turn on. */
  private readonly waiting: Array<() => void> = [];
  private readonly rate: RateBucket;

  constructor(
    maxStartsPerSecond: number,
    private readonly scheduleTurn: ScheduleTurn = nextTurnOfTheLoop,
    now?: () => number,
  ) {
    this.rate = new RateBucket(maxStartsPerSecond, now, 0.25);
  }

  /** Whether a start may happen now without waiting: none happened this turn, nobody waits, and the rate allows one. */
  get free(): boolean {
    return !this.usedThisTurn && this.waiting.length === 0 && this.rate.msUntilToken() === 0;
  }

  /** A terminal was started (this turn). */
  used(): void {
    this.usedThisTurn = true;
    this.rate.spend(1);
    this.nextTurn();
  }

  /** Calls `takeTurn` in a later turn of its own, once the rate allows a start. */
  wait(takeTurn: () => void): void {
    this.waiting.push(takeTurn);
    this.nextTurn();
  }

  private nextTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    const afterMs = this.waiting.length > 0 ? this.rate.msUntilToken() : 0;
    this.scheduleTurn(() => {
      this.turnScheduled = false;
      this.usedThisTurn = false;
      while (!this.usedThisTurn && this.waiting.length > 0 && this.rate.msUntilToken() === 0) this.waiting.shift()!();
      if (this.waiting.length > 0) this.nextTurn();
    }, afterMs);
  }
}
