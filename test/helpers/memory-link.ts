import type { FrameLink, LinkHandlers } from '../../src/transport/link.js';

/**
 * A SIMULATED link: two in-process FrameLinks wired to each other, for tests
 * that need a peer without a socket. Delivery is asynchronous (a microtask)
 * and in order, like a network; it can drop chosen frames or go silent.
 */
export interface MemoryLink extends FrameLink {
  /** Every frame this side sent, in order, including dropped ones. */
  readonly sent: Uint8Array[];
  /** Frames this side sent that the predicate accepts are lost (not delivered). */
  dropOutgoing: ((frame: Uint8Array) => boolean) | undefined;
  /** A black hole: from now on nothing is delivered either way and neither side is told. */
  goSilent(): void;
  readonly silent: boolean;
}

export function memoryLinkPair(): [MemoryLink, MemoryLink] {
  const shared = { silent: false };
  const a = new MemoryEnd(shared);
  const b = new MemoryEnd(shared);
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class MemoryEnd implements MemoryLink {
  peer!: MemoryEnd;
  readonly sent: Uint8Array[] = [];
  dropOutgoing: ((frame: Uint8Array) => boolean) | undefined;
  private handlers: LinkHandlers | undefined;
  private readonly inbox: Array<{ frame: Uint8Array } | { close: string }> = [];
  private open = true;
  private closeDelivered = false;

  constructor(private readonly shared: { silent: boolean }) {}

  get bufferedBytes(): number {
    return 0;
  }

  get isOpen(): boolean {
    return this.open;
  }

  get silent(): boolean {
    return this.shared.silent;
  }

  goSilent(): void {
    this.shared.silent = true;
  }

  send(frame: Uint8Array): void {
    if (!this.open) return;
    const copy = frame.slice();
    this.sent.push(copy);
    if (this.shared.silent || this.dropOutgoing?.(copy)) return;
    this.peer.deliver({ frame: copy });
  }

  close(reason = 'closed'): void {
    if (!this.open) return;
    this.open = false;
    this.deliver({ close: reason });
    if (!this.shared.silent) this.peer.deliver({ close: `peer closed: ${reason}` });
  }

  attach(handlers: LinkHandlers): void {
    this.handlers = handlers;
    this.drain();
  }

  private deliver(item: { frame: Uint8Array } | { close: string }): void {
    this.inbox.push(item);
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    if (!this.handlers) return;
    while (this.inbox.length > 0) {
      const item = this.inbox.shift()!;
      if ('frame' in item) {
        if (!this.closeDelivered) this.handlers.frame(item.frame);
      } else if (!this.closeDelivered) {
        this.closeDelivered = true;
        this.open = false;
        this.handlers.close(item.close);
      }
    }
  }
}
