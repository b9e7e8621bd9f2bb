/**
 * Terminal starts, one per turn of the event loop. Starting a terminal forks
 * a process, which blocks this thread (about 10 ms on a quiet machine, far
 * more on a busy one): 60 Subscribes sent at once held every other
 * connection's frames, and a newcomer's Subscribe, for over a second. A
 * start waits for a turn of its own, and the connections waiting take turns
 * in the order they asked, so other connections' frames are read between two
 * starts.
 */
export class StartTurns {
  private usedThisTurn = false;
  private turnScheduled = false;
  /** Each is called when its turn comes; one that starts no terminal (used) passes the turn on. */
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly nextTurn: (run: () => void) => void = setImmediate) {}

  /** Whether a start may happen now without waiting: none happened this turn, and nobody waits. */
  get free(): boolean {
    return !this.usedThisTurn && this.waiting.length === 0;
  }

  /** A terminal was started this turn. */
  used(): void {
    this.usedThisTurn = true;
    this.scheduleTurn();
  }

  /** Calls `takeTurn` in a later turn of its own. */
  wait(takeTurn: () => void): void {
    this.waiting.push(takeTurn);
    this.scheduleTurn();
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    this.nextTurn(() => {
      this.turnScheduled = false;
      this.usedThisTurn = false;
      while (!this.usedThisTurn && this.waiting.length > 0) this.waiting.shift()!();
      if (this.waiting.length > 0) this.scheduleTurn();
    });
  }
}
