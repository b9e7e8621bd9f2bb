/**
 * A token bucket: `perSecond` tokens, refilled continuously at `perSecond`
 * a second, so a burst of `burstSeconds`' worth (one second's by default)
 * passes and a sustained flood does not. The clock is injected so tests need
 * no sleeps.
 */
export class RateBucket {
  private tokens: number;
  private last: number;

  constructor(
    private perSecond: number,
    private readonly now: () => number = () => performance.now(),
    private readonly burstSeconds = 1,
  ) {
    this.tokens = this.capacity;
    this.last = now();
  }

  private get capacity(): number {
    return Math.max(1, this.perSecond * this.burstSeconds);
  }

  /** Takes one token; false when the bucket is empty (the rate is exceeded). */
  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Spends `amount` whatever the balance: a cost known only once paid (a snapshot's size) may leave the bucket in debt. */
  spend(amount: number): void {
    this.refill();
    this.tokens -= amount;
  }

  /** Changes the rate from now on; what is past is refilled at the old one, and the bucket holds at most a burst of the new. */
  setRate(perSecond: number): void {
    if (perSecond === this.perSecond) return;
    this.refill();
    this.perSecond = perSecond;
    this.tokens = Math.min(this.tokens, this.capacity);
  }

  /** How long until take() can succeed; 0 when it can now. */
  msUntilToken(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
  }
}
