/**
 * Output credit for one stream or one connection: how many Output bytes may be
 * unacknowledged at once. The window doubles, up to its maximum, when an Ack
 * frees a sender that had been held back and the window, not the reader, was
 * what held it: the Ack came about as fast as Acks come (within twice the
 * quickest delay from a frame's send to its Ack, plus `growthMaxQueueMs`). A
 * reader slower than the program acks late, since output waits at its end; a
 * bigger window would only add to what waits there, ahead of the answer to
 * its next key (Ctrl-C in a flood).
 */
export class FlowWindow {
  private inFlightBytes = 0;
  private blocked = false;
  /** Bytes sent and acked (or released) since the start: an Ack's bytes are the oldest in flight. */
  private sentTotal = 0;
  private ackedTotal = 0;
  /** Frames in flight, oldest first: where each ends in the byte count, and when it went. */
  private readonly inFlightFrames: Array<{ readonly end: number; readonly sentAt: number }> = [];
  private quickestAckMs = Infinity;

  constructor(
    private windowBytes: number,
    private readonly maxBytes: number,
    private readonly growthMaxQueueMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get inFlight(): number {
    return this.inFlightBytes;
  }

  get window(): number {
    return this.windowBytes;
  }

  /** One frame may always go when nothing is in flight, so a frame above the window cannot stall forever. */
  canSend(bytes: number): boolean {
    return this.inFlightBytes === 0 || this.inFlightBytes + bytes <= this.windowBytes;
  }

  markBlocked(): void {
    this.blocked = true;
  }

  sent(bytes: number): void {
    this.inFlightBytes += bytes;
    this.sentTotal += bytes;
    this.inFlightFrames.push({ end: this.sentTotal, sentAt: this.now() });
  }

  /** Returns the bytes actually credited: an Ack for more than was in flight is clamped. */
  acked(bytes: number): number {
    const credited = this.forget(bytes);
    const ackMs = this.ackDelayOfNewestFrameAcked();
    if (ackMs !== undefined) this.quickestAckMs = Math.min(this.quickestAckMs, ackMs);
    if (this.blocked && credited > 0) {
      this.blocked = false;
      const windowHeldIt = ackMs !== undefined && ackMs <= 2 * this.quickestAckMs + this.growthMaxQueueMs;
      if (windowHeldIt) this.windowBytes = Math.min(this.maxBytes, this.windowBytes * 2);
    }
    return credited;
  }

  /** Forgets a stream's in-flight bytes when it goes away. */
  release(bytes: number): void {
    this.forget(bytes);
    this.ackDelayOfNewestFrameAcked();
  }

  private forget(bytes: number): number {
    const credited = Math.max(0, Math.min(bytes, this.inFlightBytes));
    this.inFlightBytes -= credited;
    this.ackedTotal += credited;
    return credited;
  }

  /** Drops the frames now wholly acked; the time since the newest of them went, if any. */
  private ackDelayOfNewestFrameAcked(): number | undefined {
    let newest: { readonly sentAt: number } | undefined;
    while (this.inFlightFrames.length > 0 && this.inFlightFrames[0]!.end <= this.ackedTotal) newest = this.inFlightFrames.shift();
    return newest === undefined ? undefined : this.now() - newest.sentAt;
  }
}
