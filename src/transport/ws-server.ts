import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../codec/header.js';
import { Op } from '../codec/opcodes.js';
import { encodePayload } from '../codec/payload.js';
import type { FrameLink, LinkHandlers } from './link.js';

export interface WsServerOptions {
  /** Interface to listen on. Default '127.0.0.1'. */
  readonly host: string;
  /** Port; 0 picks a free one. Default 0. */
  readonly port: number;
  /** Largest message (= one frame) accepted; a bigger one closes that connection with 1009. Default 16 MiB. */
  readonly maxMessageBytes: number;
  /** Pause between a pong and the next ping. Default 5000 ms. */
  readonly pingIntervalMs: number;
  /** A ping unanswered this long drops the connection. Default 10000 ms. */
  readonly pongDeadlineMs: number;
}

export const DEFAULT_WS_SERVER_OPTIONS: WsServerOptions = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  maxMessageBytes: 16 * 1024 * 1024,
  pingIntervalMs: 5_000,
  pongDeadlineMs: 10_000,
});

export interface WsLinkInfo {
  readonly remoteAddress: string;
  readonly remotePort: number;
}

export interface StartWsServerOptions extends Readonly<Partial<WsServerOptions>> {
  /** Required as `Authorization: Bearer <token>` on the upgrade; anything else gets HTTP 401. */
  readonly token: string;
  /** Called once per authenticated connection. */
  readonly onLink: (link: FrameLink, info: WsLinkInfo) => void;
}

/** What the server refused or dropped; only grows. */
export interface WsServerStats {
  authRefused: number;
  textMessagesRefused: number;
  oversizedClosed: number;
  livenessDropped: number;
}

export interface WsServer {
  readonly url: string;
  readonly port: number;
  readonly stats: Readonly<WsServerStats>;
  close(): Promise<void>;
}

const CLOSE_MESSAGE_TOO_BIG = 1009;
const CLOSE_GOING_AWAY = 1001;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares in constant time: both sides are hashed first, so lengths never leak either. */
function tokenMatches(request: IncomingMessage, expectedDigest: Buffer): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  return timingSafeEqual(sha256(match?.[1] ?? ''), expectedDigest) && match !== null;
}

function refuse(socket: Socket, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\nWWW-Authenticate: Bearer\r\n\r\n`);
  socket.destroy();
}

/** Serves termwire frames over WebSocket, one binary message per frame. */
export async function startWsServer(options: StartWsServerOptions): Promise<WsServer> {
  const opts: WsServerOptions = { ...DEFAULT_WS_SERVER_OPTIONS, ...stripUndefined(options) };
  if (!options.token) throw new Error('startWsServer: a non-empty token is required');
  const expected = sha256(options.token);
  const stats: WsServerStats = { authRefused: 0, textMessagesRefused: 0, oversizedClosed: 0, livenessDropped: 0 };
  const links = new Set<WsServerLink>();
  const http = createServer((_req, res) => {
    res.writeHead(426, { Connection: 'close' }).end('termwire: WebSocket upgrade required\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes, perMessageDeflate: false });

  http.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    if (!tokenMatches(request, expected)) {
      stats.authRefused++;
      return refuse(socket, '401 Unauthorized');
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const link = new WsServerLink(ws, opts, stats);
      links.add(link);
      ws.once('close', () => links.delete(link));
      options.onLink(link, { remoteAddress: request.socket.remoteAddress ?? '', remotePort: request.socket.remotePort ?? 0 });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `ws://${hostForUrl}:${port}`,
    port,
    stats,
    async close() {
      for (const link of [...links]) link.close('server closing');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
    },
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Internal shape of ws's Receiver that the oversize reason needs (see the constructor). */
interface WsInternals {
  _receiver?: { prependListener(event: 'error', cb: (err: Error & { code?: string }) => void): void; _totalPayloadLength?: number };
}

class WsServerLink implements FrameLink {
  private handlers: LinkHandlers | undefined;
  private readonly held: Uint8Array[] = [];
  private heldCloseReason: string | undefined;
  private closed = false;
  private closeReason: string | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly opts: WsServerOptions,
    private readonly stats: WsServerStats,
  ) {
    // ws refuses an oversized message as soon as its length is read (nothing
    // is buffered), but closes with 1009 and no reason. Running first on the
    // receiver's error lets the close say which limit and which size.
    const receiver = (ws as unknown as WsInternals)._receiver;
    receiver?.prependListener('error', (err) => {
      if (err.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
      this.stats.oversizedClosed++;
      const size = receiver._totalPayloadLength;
      this.closeReason = `message ${size ?? 'of unknown size'} bytes > maxMessageBytes ${opts.maxMessageBytes}`;
      ws.close(CLOSE_MESSAGE_TOO_BIG, this.closeReason.slice(0, 123)); // a close reason holds at most 123 bytes
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (isBinary) this.receive(toBytes(data));
      else this.refuseText(toBytes(data).length);
    });
    ws.on('pong', () => this.onPong());
    ws.on('error', (err) => {
      this.closeReason ??= `error: ${err.message}`;
    });
    ws.on('close', (code, reason) => this.finish(this.closeReason ?? `closed: code ${code}${reason.length ? ` ${reason.toString()}` : ''}`));
    this.schedulePing();
  }

  get bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  send(frame: Uint8Array): void {
    if (this.isOpen) this.ws.send(frame, { binary: true });
  }

  close(reason = 'closed by host'): void {
    if (this.closed) return;
    this.closeReason ??= reason;
    this.ws.close(CLOSE_GOING_AWAY, reason.slice(0, 123));
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

  private refuseText(bytes: number): void {
    this.stats.textMessagesRefused++;
    const message = `TEXT_MESSAGE: text message of ${bytes} bytes refused: frames are binary messages`;
    this.send(encodeFrame({ opcode: Op.Error, streamId: 0, payload: encodePayload('Error', message) }));
  }

  private schedulePing(): void {
    this.pingTimer = setTimeout(() => this.sendPing(), this.opts.pingIntervalMs);
  }

  private sendPing(): void {
    if (!this.isOpen) return;
    this.ws.ping();
    this.deadlineTimer = setTimeout(() => {
      this.stats.livenessDropped++;
      this.closeReason = `liveness: no pong within ${this.opts.pongDeadlineMs}ms`;
      this.ws.terminate();
      this.finish(this.closeReason);
    }, this.opts.pongDeadlineMs);
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

function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
