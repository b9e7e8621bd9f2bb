import WebSocket from 'ws';
import type { FrameLink } from './link.js';
import { toBytes, WsFrameLink } from './ws-link.js';

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

/** The client side: pings at once, closes with 1000. */
class WsClientLink extends WsFrameLink {
  constructor(ws: WebSocket, opts: WsClientOptions) {
    super(ws, opts, { closeCode: 1000, defaultCloseReason: 'closed by client', pingAtOnce: true });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => this.receive(toBytes(data)));
  }
}
