import type { FrameLink } from '../transport/link.js';
import type { HostCloseReason, HostLimits } from './options.js';

export interface LinkGuardEvents {
  /** The link fell back under the soft ceiling: streams may send what they owe. */
  drained(): void;
  /** The link must be closed for a limit. */
  overLimit(reason: HostCloseReason, message: string): void;
}

/**
 * Watches the bytes a link holds for its peer. Above the soft ceiling the
 * link is congested (the host stops feeding it); past the hard ceiling, or
 * congested for longer than the drain deadline, the peer is not reading and
 * the link must close. Polled only while congested: links have no common
 * drain event (ws's bufferedAmount also counts its own queue, not just the socket's).
 */
export class LinkGuard {
  private congestedSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly link: FrameLink,
    private readonly limits: HostLimits,
    private readonly events: LinkGuardEvents,
  ) {}

  get congested(): boolean {
    return this.congestedSince !== undefined || this.link.bufferedBytes > this.limits.linkSoftBufferedBytes;
  }

  /** Called after every send. */
  sent(): void {
    const buffered = this.link.bufferedBytes;
    if (buffered > this.limits.linkHardBufferedBytes) {
      return this.events.overLimit('LINK_BUFFER_OVERFLOW', `${buffered} bytes buffered > linkHardBufferedBytes ${this.limits.linkHardBufferedBytes}`);
    }
    if (buffered > this.limits.linkSoftBufferedBytes && this.congestedSince === undefined) {
      this.congestedSince = performance.now();
      this.timer = setInterval(() => this.check(), this.limits.linkDrainCheckMs);
      this.timer.unref();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.congestedSince = undefined;
  }

  private check(): void {
    if (this.congestedSince === undefined) return;
    const buffered = this.link.bufferedBytes;
    if (buffered <= this.limits.linkSoftBufferedBytes) {
      this.stop();
      this.events.drained();
      return;
    }
    const waited = performance.now() - this.congestedSince;
    if (waited > this.limits.linkDrainDeadlineMs) {
      this.stop();
      this.events.overLimit('LINK_DRAIN_TIMEOUT', `${buffered} bytes still buffered after ${Math.round(waited)}ms > linkDrainDeadlineMs ${this.limits.linkDrainDeadlineMs}`);
    }
  }
}
