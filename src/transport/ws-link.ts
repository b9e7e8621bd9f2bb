import type WebSocket from 'ws';
import type { FrameLink, LinkHandlers } from './link.js';

export interface Liveness {
  /** Pause between a pong and the next ping. */
  readonly pingIntervalMs: number;
  /** A ping unanswered this long declares the link dead. */
  readonly pongDeadlineMs: number;
}

/** How one side of a WebSocket closes: its close code, its default reason, and what it counts. */
export interface WsLinkSide {
  readonly closeCode: number;
  readonly defaultCloseReason: string;
  /** Ping at once (a client checks a fresh link) or after one interval (a host lets the client speak first). */
  readonly pingAtOnce: boolean;
  readonly onLivenessDrop?: () => void;
}

/**
 * One WebSocket as a FrameLink, shared by the client and the host transports:
 * frames received before attach() are held, the close handler runs exactly
 * once, and ping/pong liveness declares a silent peer dead.
 */
export abstract class WsFrameLink implements FrameLink {
  private handlers: LinkHandlers | undefined;
  private readonly held: Uint8Array[] = [];
  private heldCloseReason: string | undefined;
  private closed = false;
  protected closeReason: string | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;

  protected constructor(
    protected readonly ws: WebSocket,
    private readonly liveness: Liveness,
    private readonly side: WsLinkSide,
  ) {
    ws.on('pong', () => this.onPong());
    ws.on('error', (err) => {
      this.closeReason ??= `error: ${err.message}`;
    });
    ws.on('close', (code, reason) => this.finish(this.closeReason ?? `closed: code ${code}${reason.length ? ` ${reason.toString()}` : ''}`));
    if (side.pingAtOnce) this.sendPing();
    else this.schedulePing();
  }

  get bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  send(frame: Uint8Array): void {
    if (this.isOpen) this.ws.send(frame, { binary: true });
  }

  close(reason = this.side.defaultCloseReason): void {
    if (this.closed) return;
    this.closeReason ??= reason;
    this.ws.close(this.side.closeCode, reason.slice(0, 123)); // a close reason holds at most 123 bytes
    // Run the handler now: a peer that never answers the close handshake must not delay the caller.
    this.finish(this.closeReason);
  }

  attach(handlers: LinkHandlers): void {
    this.handlers = handlers;
    for (const bytes of this.held.splice(0)) handlers.frame(bytes);
    if (this.heldCloseReason !== undefined) handlers.close(this.heldCloseReason);
  }

  protected receive(bytes: Uint8Array): void {
    if (this.closed) return;
    if (this.handlers) this.handlers.frame(bytes);
    else this.held.push(bytes);
  }

  private schedulePing(): void {
    this.pingTimer = setTimeout(() => this.sendPing(), this.liveness.pingIntervalMs);
  }

  private sendPing(): void {
    if (!this.isOpen) return;
    this.ws.ping();
    this.deadlineTimer = setTimeout(() => {
      this.side.onLivenessDrop?.();
      this.closeReason = `liveness: no pong within ${this.liveness.pongDeadlineMs}ms`;
      this.ws.terminate();
      this.finish(this.closeReason);
    }, this.liveness.pongDeadlineMs);
  }

  private onPong(): void {
    if (this.deadlineTimer === undefined) return; // unsolicited pong: no ping outstanding
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.schedulePing();
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.pingTimer);
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    if (this.handlers) this.handlers.close(reason);
    else this.heldCloseReason = reason;
  }
}

export function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
