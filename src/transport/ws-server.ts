import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../codec/header.js';
import { Op } from '../codec/opcodes.js';
import { encodePayload } from '../codec/payload.js';
import type { FrameLink } from './link.js';
import { toBytes, WsFrameLink } from './ws-link.js';

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

/** The host side: lets the client ping first, closes with 1001, counts what it refuses. */
class WsServerLink extends WsFrameLink {
  constructor(
    ws: WebSocket,
    private readonly opts: WsServerOptions,
    private readonly stats: WsServerStats,
  ) {
    super(ws, opts, { closeCode: CLOSE_GOING_AWAY, defaultCloseReason: 'closed by host', pingAtOnce: false, onLivenessDrop: () => stats.livenessDropped++ });
    // ws refuses an oversized message as soon as its length is read (nothing
    // is buffered), but closes with 1009 and no reason. Running first on the
    // receiver's error lets the close say which limit and which size.
    const receiver = (ws as unknown as WsInternals)._receiver;
    receiver?.prependListener('error', (err) => {
      if (err.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
      this.stats.oversizedClosed++;
      const size = receiver._totalPayloadLength;
      this.closeReason = `message ${size ?? 'of unknown size'} bytes > maxMessageBytes ${this.opts.maxMessageBytes}`;
      ws.close(CLOSE_MESSAGE_TOO_BIG, this.closeReason.slice(0, 123)); // a close reason holds at most 123 bytes
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (isBinary) this.receive(toBytes(data));
      else this.refuseText(toBytes(data).length);
    });
  }

  private refuseText(bytes: number): void {
    this.stats.textMessagesRefused++;
    const message = `TEXT_MESSAGE: text message of ${bytes} bytes refused: frames are binary messages`;
    this.send(encodeFrame({ opcode: Op.Error, streamId: 0, payload: encodePayload('Error', message) }));
  }
}
