/**
 * Output credit for one stream or one connection: how many Output bytes may be
 * unacknowledged at once. The window doubles, up to its maximum, whenever an
 * Ack frees a sender that had been held back, so a fast reader earns room.
 */
export class FlowWindow {
  private inFlightBytes = 0;
  private blocked = false;

  constructor(
    private windowBytes: number,
    private readonly maxBytes: number,
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
  }

  /** Returns the bytes actually credited: an Ack for more than was in flight is clamped. */
  acked(bytes: number): number {
    const credited = Math.min(bytes, this.inFlightBytes);
    this.inFlightBytes -= credited;
    if (this.blocked && credited > 0) {
      this.blocked = false;
      this.windowBytes = Math.min(this.maxBytes, this.windowBytes * 2);
    }
    return credited;
  }

  /** Forgets a stream's in-flight bytes when it goes away. */
  release(bytes: number): void {
    this.inFlightBytes = Math.max(0, this.inFlightBytes - bytes);
  }
}
