import WebSocket from 'ws';
import type { FrameLink, LinkHandlers } from './link.js';

export interface WsClientOptions {
  /** Sent as `Authorization: Bearer <token>` on the upgrade request. Required. */
  readonly token: string;
  /** Largest single message (= one frame) accepted; a bigger one closes the link. Default 16 MiB. */
  readonly maxMessageBytes: number;
  /** Pause between a pong and the next ping. Default 5000 ms. */
  readonly pingIntervalMs: number;
  /** A ping unanswered this long declares the link dead. Default 10000 ms. */
  readonly pongDeadlineMs: number;
  /** The upgrade must complete within this. Default 10000 ms. */
  readonly connectTimeoutMs: number;
}

export const DEFAULT_WS_CLIENT_OPTIONS: Omit<WsClientOptions, 'token'> = Object.freeze({
  maxMessageBytes: 16 * 1024 * 1024,
  pingIntervalMs: 5_000,
  pongDeadlineMs: 10_000,
  connectTimeoutMs: 10_000,
});

export const WS_CONNECT_ERROR_CODES = {
  AUTH_REFUSED: 'the host refused the upgrade with 401 or 403: wrong or missing token',
  CONNECT_FAILED: 'the connection or upgrade failed for another reason (refused, timeout, unexpected status)',
} as const;
export type WsConnectErrorCode = keyof typeof WS_CONNECT_ERROR_CODES;

export class WsConnectError extends Error {
  override readonly name = 'WsConnectError';
  constructor(
    readonly code: WsConnectErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * Opens a WebSocket to a termwire host and returns it as a FrameLink: each
 * binary message is one frame. Rejects with WsConnectError.
 */
export function connectWs(url: string, options: Readonly<Partial<WsClientOptions>> & { token: string }): Promise<FrameLink> {
  const opts: WsClientOptions = { ...DEFAULT_WS_CLIENT_OPTIONS, ...options };
  return new Promise<FrameLink>((resolve, reject) => {
    let settled = false;
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${opts.token}` },
      maxPayload: opts.maxMessageBytes,
      handshakeTimeout: opts.connectTimeoutMs,
      perMessageDeflate: false,
    });
    const fail = (error: WsConnectError): void => {
      if (settled) return;
      settled = true;
      ws.removeAllListeners();
      ws.on('error', () => {}); // a late socket error after we gave up must not crash the process
      ws.terminate();
      reject(error);
    };
    ws.once('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 || status === 403) fail(new WsConnectError('AUTH_REFUSED', `${url} refused the upgrade with HTTP ${status}`, status));
      else fail(new WsConnectError('CONNECT_FAILED', `${url} answered the upgrade with HTTP ${status}`, status));
    });
    ws.once('error', (err) => fail(new WsConnectError('CONNECT_FAILED', `${url}: ${err.message}`)));
    ws.once('close', (code) => fail(new WsConnectError('CONNECT_FAILED', `${url} closed during the upgrade (code ${code})`)));
    ws.once('open', () => {
      if (settled) return;
      settled = true;
      ws.removeAllListeners();
      resolve(new WsClientLink(ws, opts));
    });
  });
}

class WsClientLink implements FrameLink {
  private handlers: LinkHandlers | undefined;
  private readonly held: Uint8Array[] = [];
  private heldCloseReason: string | undefined;
  private closed = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private closeReason: string | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly opts: WsClientOptions,
  ) {
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => this.receive(toBytes(data)));
    ws.on('pong', () => this.onPong());
    ws.on('error', (err) => {
      this.closeReason ??= `error: ${err.message}`;
    });
    ws.on('close', (code, reason) => this.finish(this.closeReason ?? `closed: code ${code}${reason.length ? ` ${reason.toString()}` : ''}`));
    this.sendPing();
  }

  get bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  send(frame: Uint8Array): void {
    if (!this.isOpen) return;
    this.ws.send(frame, { binary: true });
  }

  close(reason = 'closed by client'): void {
    if (this.closed) return;
    this.closeReason ??= reason;
    this.ws.close(1000);
    // Run the handler now: a peer that never answers the close handshake must not delay the caller.
    this.finish(this.closeReason);
  }

  attach(handlers: LinkHandlers): void {
    this.handlers = handlers;
    for (const bytes of this.held.splice(0)) handlers.frame(bytes);
    if (this.heldCloseReason !== undefined) handlers.close(this.heldCloseReason);
  }

  private receive(bytes: Uint8Array): void {
    if (this.closed) return;
    if (this.handlers) this.handlers.frame(bytes);
    else this.held.push(bytes);
  }

  private sendPing(): void {
    if (!this.isOpen) return;
    this.ws.ping();
    this.deadlineTimer = setTimeout(() => {
      this.closeReason = `liveness: no pong within ${this.opts.pongDeadlineMs}ms`;
      this.ws.terminate();
      this.finish(this.closeReason);
    }, this.opts.pongDeadlineMs);
  }

  private onPong(): void {
    if (this.deadlineTimer === undefined) return; // unsolicited pong: no ping outstanding
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.pingTimer = setTimeout(() => this.sendPing(), this.opts.pingIntervalMs);
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

function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
