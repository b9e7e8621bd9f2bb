import { randomBytes } from 'node:crypto';
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

const PING_NONCE_BYTES = 8;
/** How long a peer closed for a limit has to read its close frame before the socket is dropped. */
const LIMIT_CLOSE_GRACE_MS = 1000;

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
  /** The payload of the outstanding ping; only a pong echoing it proves the peer read that far. */
  private pingNonce: Buffer | undefined;
  /** Any pong counts as hearing the peer (it is there), even one that proves nothing about reading. */
  lastHeardAt = Date.now();
  /** performance.now() of the last frame received: frames keep a link alive while its pong waits behind them. */
  private lastFrameAt = 0;

  protected constructor(
    protected readonly ws: WebSocket,
    private readonly liveness: Liveness,
    private readonly side: WsLinkSide,
  ) {
    ws.on('pong', (data: Buffer) => this.onPong(data));
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

  close(reason = this.side.defaultCloseReason, code = this.side.closeCode): void {
    if (this.closed) return;
    this.closeReason ??= reason;
    this.ws.close(code, reason.slice(0, 123)); // a close reason holds at most 123 bytes
    if (code !== this.side.closeCode) {
      // A refused peer may not be reading: its close frame waits behind what it did not read. Give it a moment, then drop the socket and its buffers.
      setTimeout(() => this.ws.terminate(), LIMIT_CLOSE_GRACE_MS).unref();
    }
    // Run the handler now: a peer that never answers the close handshake must not delay the caller.
    this.finish(this.closeReason);
  }

  pauseReading(): void {
    this.ws.pause();
  }

  resumeReading(): void {
    this.ws.resume();
  }

  attach(handlers: LinkHandlers): void {
    this.handlers = handlers;
    for (const bytes of this.held.splice(0)) handlers.frame(bytes);
    if (this.heldCloseReason !== undefined) handlers.close(this.heldCloseReason);
  }

  protected receive(bytes: Uint8Array): void {
    if (this.closed) return;
    this.lastHeardAt = Date.now();
    this.lastFrameAt = performance.now();
    if (this.handlers) this.handlers.frame(bytes);
    else this.held.push(bytes);
  }

  private schedulePing(): void {
    this.pingTimer = setTimeout(() => this.sendPing(), this.liveness.pingIntervalMs);
  }

  private sendPing(): void {
    if (!this.isOpen) return;
    this.pingNonce = randomBytes(PING_NONCE_BYTES);
    // Every ws peer echoes the ping's payload in its pong (RFC 6455 5.5.3), old builds included.
    this.ws.ping(this.pingNonce);
    this.armPongDeadline(this.pingNonce, performance.now());
  }

  /**
   * Drops the link when `nonce` is still unanswered a deadline after `since`.
   * Judged after pending input is read (setImmediate runs after the poll): after a
   * stall of this process (a blocking write to a slow terminal, a loaded machine)
   * the timer runs before the pong that arrived meanwhile. A peer whose frames
   * still arrive is alive, its pong only queued behind them (a slow link full of
   * output): the deadline starts again from the last frame.
   */
  private armPongDeadline(nonce: Buffer, since: number): void {
    this.deadlineTimer = setTimeout(() => {
      setImmediate(() => {
        if (this.pingNonce !== nonce || this.closed) return;
        if (this.lastFrameAt > since) return this.armPongDeadline(nonce, this.lastFrameAt);
        this.side.onLivenessDrop?.();
        this.closeReason = `liveness: no pong within ${this.liveness.pongDeadlineMs}ms`;
        this.ws.terminate();
        this.finish(this.closeReason);
      });
    }, this.liveness.pongDeadlineMs);
  }

  private onPong(data: Buffer): void {
    this.lastHeardAt = Date.now();
    if (this.deadlineTimer === undefined) return; // unsolicited pong: no ping outstanding
    // A pong sent without reading our ping (any other payload) proves nothing.
    if (!this.pingNonce?.equals(data)) return;
    this.pingNonce = undefined;
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
