/** A connection that spent snapshot bytes this recently still counts as one of those sharing the host's budget. */
export const SNAPSHOT_SHARE_WINDOW_MS = 5000;

/**
 * The host-wide budget of snapshot bytes a second (maxTotalSnapshotBytesPerSecond),
 * shared evenly by the connections that spent some lately: each may spend
 * the total over their number, never more than its own
 * maxSnapshotBytesPerSecond. Twelve connections churning Subscribes on a
 * 1000x1000 screen were each allowed 32 MiB a second, which took the host's
 * one thread and every newcomer's Subscribe with it; now they share the
 * budget, and a newcomer asking for a small snapshot is never held.
 */
export class SnapshotShare {
  private readonly lastSpent = new Map<object, number>();

  constructor(
    private readonly totalPerSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `spender` spent snapshot bytes now. */
  spent(spender: object): void {
    this.lastSpent.delete(spender); // oldest first, so the scan in share() can stop early
    this.lastSpent.set(spender, this.now());
  }

  /** What `spender` may spend a second now: the total over the connections spending lately, itself included. */
  share(spender: object): number {
    const t = this.now();
    for (const [s, at] of this.lastSpent) {
      if (t - at <= SNAPSHOT_SHARE_WINDOW_MS) break;
      this.lastSpent.delete(s);
    }
    const sharing = this.lastSpent.size + (this.lastSpent.has(spender) ? 0 : 1);
    return this.totalPerSecond / sharing;
  }

  forget(spender: object): void {
    this.lastSpent.delete(spender);
  }
}
