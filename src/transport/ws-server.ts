import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../codec/header.js';
import { Op } from '../codec/opcodes.js';
import { encodePayload } from '../codec/payload.js';
import { AuthThrottle } from './auth-throttle.js';
import { networkSource } from './network-source.js';
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
  /** Sockets connected but not yet authenticated; one more drops the oldest of them. Default 64. */
  readonly maxPendingSockets: number;
  /** A socket not authenticated (upgraded with the right token) this long after it connected is dropped. Default 5000 ms. */
  readonly handshakeTimeoutMs: number;
  /** After a failed authentication from a network (IPv4 /24, IPv6 /64, one loopback address), its next attempt is judged this much later, and attempts are judged one at a time; each further failure doubles it. Default 100 ms. */
  readonly authFailureDelayMs: number;
  /** The longest wait before an attempt from a failing network is judged. Default 5000 ms. */
  readonly authFailureMaxDelayMs: number;
  /** A network without a failure for this long starts again from no delay. Default 60000 ms. */
  readonly authFailureForgetMs: number;
  /** Past this many failed authentications in a second, over all networks, every attempt waits for a host-wide turn, this many a second. Default 20. */
  readonly authFailuresPerSecond: number;
  /** Failed authentications logged per minute; the rest are counted in one line. Default 20. */
  readonly authLogLinesPerMinute: number;
  /** Authenticated connections open at once; one more is answered 503 CONNECTIONS_PER_SERVER_LIMIT before it upgrades. Default 256. */
  readonly maxConnections: number;
  /** Authenticated connections open at once from one network (an IPv4 /24, an IPv6 /64, one loopback address); one more is answered 503 CONNECTIONS_PER_SOURCE_LIMIT. Default 64. */
  readonly maxConnectionsPerSource: number;
  /**
   * At maxConnections (or a network at maxConnectionsPerSource), a newcomer
   * takes the place of the connection (of that network) that has sent no
   * frame for longest, if that is at least this long: it is closed 1008
   * CONNECTION_EVICTED_IDLE. Answering pings is not activity. At
   * maxConnections, when none is that idle, the network holding the most
   * connections gives way next (CONNECTION_EVICTED_SHARE), if it holds at
   * least two more than the newcomer's; only when shares are even is the
   * newcomer answered 503. Default 60000 ms.
   */
  readonly evictIdleAfterMs: number;
  /** On close(), sockets still open this long after their close frame are destroyed. Default 500 ms. */
  readonly closeGraceMs: number;
  /**
   * Bytes of messages begun and not yet finished, over all connections (each
   * is at most maxMessageBytes); past it the connection holding the largest
   * unfinished message is closed with 1008 INCOMPLETE_MESSAGE_BUDGET. Default 64 MiB.
   */
  readonly maxIncompleteMessageBytes: number;
  /** A message begun this long ago and still unfinished closes its connection with 1008 INCOMPLETE_MESSAGE_TIMEOUT. Default 60000 ms. */
  readonly incompleteMessageDeadlineMs: number;
  /**
   * Bytes a second, over all connections, that messages already past their
   * first 64 KiB may add while unfinished: a socket that would go faster is
   * not read until its share is due. Frames of ordinary size never wait.
   * Default 32 MiB/s.
   */
  readonly incompleteMessageBytesPerSecond: number;
}

export const DEFAULT_WS_SERVER_OPTIONS: WsServerOptions = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  maxMessageBytes: 16 * 1024 * 1024,
  pingIntervalMs: 5_000,
  pongDeadlineMs: 10_000,
  maxPendingSockets: 64,
  handshakeTimeoutMs: 5_000,
  authFailureDelayMs: 100,
  authFailureMaxDelayMs: 5_000,
  authFailureForgetMs: 60_000,
  authFailuresPerSecond: 20,
  maxConnections: 256,
  maxConnectionsPerSource: 64,
  evictIdleAfterMs: 60_000,
  authLogLinesPerMinute: 20,
  closeGraceMs: 500,
  maxIncompleteMessageBytes: 64 * 1024 * 1024,
  incompleteMessageDeadlineMs: 60_000,
  incompleteMessageBytesPerSecond: 32 * 1024 * 1024,
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
  /** Where failed authentications are logged, one line each (rate-limited). Default: nowhere. */
  readonly log?: (line: string) => void;
}

/** What the server refused or dropped; only grows. */
export interface WsServerStats {
  authRefused: number;
  /** Authenticated upgrades answered 503 for maxConnections or maxConnectionsPerSource. */
  connectionsRefused: number;
  /** Connections closed 1008 CONNECTION_EVICTED_IDLE to let a newcomer in at maxConnections or maxConnectionsPerSource. */
  idleEvicted: number;
  /** Connections closed 1008 CONNECTION_EVICTED_SHARE: the idlest of the network holding the most, for a newcomer at maxConnections. */
  shareEvicted: number;
  /** Upgrades refused 429 unjudged: their turn was further off than the handshake deadline. */
  authBusy: number;
  /** Upgrades held before their token was judged, their network having failed recently. */
  authDeferred: number;
  textMessagesRefused: number;
  oversizedClosed: number;
  livenessDropped: number;
  /** Unauthenticated sockets dropped to make room under maxPendingSockets. */
  pendingDropped: number;
  /** Sockets dropped for not authenticating within handshakeTimeoutMs. */
  handshakeTimeouts: number;
  /** Sockets destroyed by close() after closeGraceMs. */
  destroyedOnClose: number;
  /** Connections closed for holding the largest unfinished message while the host-wide budget was exceeded. */
  incompleteBudgetClosed: number;
  /** Connections closed for a message left unfinished past incompleteMessageDeadlineMs. */
  incompleteTimedOut: number;
  /** Times a socket was not read for a while because unfinished messages came faster than incompleteMessageBytesPerSecond. */
  incompletePaced: number;
}

export interface WsServer {
  readonly url: string;
  readonly port: number;
  readonly stats: Readonly<WsServerStats>;
  close(): Promise<void>;
}

const CLOSE_MESSAGE_TOO_BIG = 1009;
const CLOSE_GOING_AWAY = 1001;
const CLOSE_POLICY = 1008;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares in constant time: both sides are hashed first, so lengths never leak either. */
function tokenMatches(request: IncomingMessage, expectedDigest: Buffer): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  return timingSafeEqual(sha256(match?.[1] ?? ''), expectedDigest) && match !== null;
}

/** Answers an upgrade with an HTTP error and closes the socket; `why` ("CODE: message") is the body, for a client that shows it. */
function refuse(socket: Socket, status: string, why?: string): void {
  const body = why ? `${why}\n` : '';
  const challenge = status.startsWith('401') ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n${challenge}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  socket.destroy();
}

/** Serves termwire frames over WebSocket, one binary message per frame. */
export async function startWsServer(options: StartWsServerOptions): Promise<WsServer> {
  const opts: WsServerOptions = { ...DEFAULT_WS_SERVER_OPTIONS, ...stripUndefined(options) };
  if (!options.token) throw new Error('startWsServer: a non-empty token is required');
  const expected = sha256(options.token);
  const stats: WsServerStats = { authRefused: 0, authDeferred: 0, authBusy: 0, connectionsRefused: 0, idleEvicted: 0, shareEvicted: 0, textMessagesRefused: 0, oversizedClosed: 0, livenessDropped: 0, pendingDropped: 0, handshakeTimeouts: 0, destroyedOnClose: 0, incompleteBudgetClosed: 0, incompleteTimedOut: 0, incompletePaced: 0 };
  const links = new Set<WsServerLink>();
  /** Authenticated connections by network, and in total, for maxConnectionsPerSource and maxConnections. */
  const open = new Map<string, number>();
  let openTotal = 0;
  /** Links closed to make room whose sockets have not closed yet: their places are already given away. */
  let evicting = 0;
  const connectionRefusal = (network: string): string | undefined => {
    if (openTotal - evicting >= opts.maxConnections && !evictIdle(undefined) && !evictHeaviest(network)) return `CONNECTIONS_PER_SERVER_LIMIT: ${openTotal} connections open, maxConnections ${opts.maxConnections}`;
    const fromNetwork = open.get(network) ?? 0;
    if (fromNetwork - evictingFrom(network) >= opts.maxConnectionsPerSource && !evictIdle(network)) return `CONNECTIONS_PER_SOURCE_LIMIT: ${fromNetwork} connections open from ${network}, maxConnectionsPerSource ${opts.maxConnectionsPerSource}`;
    return undefined;
  };
  const evictingFrom = (network: string): number => [...links].filter((l) => l.evicted && l.network === network).length;
  /** The link of `candidates` that has sent nothing for longest. */
  const idlestOf = (candidates: Iterable<WsServerLink>): WsServerLink | undefined => {
    let idlest: WsServerLink | undefined;
    for (const link of candidates) if (!link.evicted && (!idlest || link.lastMessageAt < idlest.lastMessageAt)) idlest = link;
    return idlest;
  };
  const evict = (link: WsServerLink, reason: string): true => {
    link.evicted = true;
    evicting++;
    link.close(reason, CLOSE_POLICY);
    return true;
  };
  /** Closes the link (of `network`, or any) idle longest, if idle at least evictIdleAfterMs; false when none is. */
  const evictIdle = (network: string | undefined): boolean => {
    const now = performance.now();
    const idlest = idlestOf([...links].filter((l) => network === undefined || l.network === network));
    if (!idlest || now - idlest.lastMessageAt < opts.evictIdleAfterMs) return false;
    stats.idleEvicted++;
    // A close reason holds 123 bytes: the network is left out (the peer knows its own).
    const scope = network === undefined ? `maxConnections ${opts.maxConnections}` : `maxConnectionsPerSource ${opts.maxConnectionsPerSource}`;
    return evict(idlest, `CONNECTION_EVICTED_IDLE: idle ${Math.round(now - idlest.lastMessageAt)} ms, the longest >= evictIdleAfterMs ${opts.evictIdleAfterMs}, at ${scope}`);
  };
  /**
   * Closes the idlest link of the network holding the most connections, if it
   * holds at least two more than the newcomer's (`network`): a full host then
   * costs its heaviest holder a place, not a newcomer its only one, and two
   * even holders never take turns evicting each other. False when shares are even.
   */
  const evictHeaviest = (network: string): boolean => {
    const held = new Map<string, WsServerLink[]>();
    for (const link of links) if (!link.evicted) (held.get(link.network) ?? held.set(link.network, []).get(link.network)!).push(link);
    const [heaviest] = [...held.values()].sort((a, b) => b.length - a.length);
    if (!heaviest || heaviest.length < (held.get(network)?.length ?? 0) + 2) return false;
    const idlest = idlestOf(heaviest)!;
    stats.shareEvicted++;
    return evict(idlest, `CONNECTION_EVICTED_SHARE: idle ${Math.round(performance.now() - idlest.lastMessageAt)} ms, the longest of ${heaviest.length}, the most from one network, at maxConnections ${opts.maxConnections}`);
  };
  const sockets = new Set<Socket>();
  const pending = new PendingSockets(opts, stats);
  const unfinished = new UnfinishedMessages(opts, stats);
  const throttle = new AuthThrottle(opts, options.log ?? (() => {}));
  let closing: Promise<void> | undefined;
  const http = createServer((_req, res) => {
    res.writeHead(426, { Connection: 'close' }).end('termwire: WebSocket upgrade required\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageBytes, perMessageDeflate: false });

  http.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    pending.add(socket);
  });

  http.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    if (closing) return void socket.destroy();
    const address = socket.remoteAddress ?? 'unknown';
    let judged = false;
    const judge = () => {
      judged = true;
      if (closing || socket.destroyed) return void socket.destroy();
      if (!tokenMatches(request, expected)) {
        stats.authRefused++;
        throttle.failed(address, request.headers.authorization ? 'wrong token' : 'no bearer token');
        return refuse(socket, '401 Unauthorized');
      }
      if (admission !== 'refuse' && admission.turn) throttle.release(address);
      const network = networkSource(address);
      const over = connectionRefusal(network);
      if (over) {
        stats.connectionsRefused++;
        return refuse(socket, `503 Service Unavailable`, over);
      }
      // Counted from here until the socket closes, upgraded or not: two upgrades at once cannot both take the last place.
      open.set(network, (open.get(network) ?? 0) + 1);
      openTotal++;
      let link: WsServerLink | undefined;
      socket.once('close', () => {
        openTotal--;
        if (link?.evicted) evicting--;
        const left = (open.get(network) ?? 1) - 1;
        if (left > 0) open.set(network, left);
        else open.delete(network);
      });
      pending.authenticated(socket);
      wss.handleUpgrade(request, socket, head, (ws) => {
        const served = (link = new WsServerLink(ws, opts, stats, network));
        links.add(served);
        unfinished.watch(served, ws);
        ws.once('close', () => links.delete(served));
        // A link the application cannot take (a host closing while a client reconnects) is closed, never a crash of the process.
        try {
          options.onLink(served, { remoteAddress: request.socket.remoteAddress ?? '', remotePort: request.socket.remotePort ?? 0 });
        } catch (error) {
          options.log?.(`termwire: a connection was refused: ${(error as Error).message}`);
          served.close('not accepted');
        }
      });
    };
    // A network that failed recently waits its turn before its token is judged. Held, still pending: the handshake deadline and the pending cap keep applying.
    const admission = throttle.admit(address);
    if (admission === 'refuse') {
      stats.authBusy++;
      return refuse(socket, '429 Too Many Requests', `AUTH_THROTTLED: attempts from ${networkSource(address)} wait their turn after failed authentications; try again later`);
    }
    if (admission.waitMs <= 0) return judge();
    stats.authDeferred++;
    const timer = setTimeout(judge, admission.waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      if (!judged && admission.turn) throttle.release(address);
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

  /** Stops listening, closes every link, drops every unauthenticated socket, and destroys what is left after closeGraceMs. */
  async function shutDown(): Promise<void> {
    http.close();
    pending.clear();
    for (const link of [...links]) link.close('server closing');
    await whenAllClosed(sockets, opts.closeGraceMs);
    for (const socket of [...sockets]) {
      stats.destroyedOnClose++;
      socket.destroy();
    }
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }

  return {
    url: `ws://${hostForUrl}:${port}`,
    port,
    stats,
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}

/** Resolves once every socket in the set has closed (it removes them), or after `timeoutMs`. */
function whenAllClosed(sockets: Set<Socket>, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (sockets.size === 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      for (const s of sockets) s.off('close', onClose);
      resolve();
    };
    const onClose = () => sockets.size === 0 && done();
    const timer = setTimeout(done, timeoutMs);
    for (const s of sockets) s.on('close', onClose);
  });
}

/**
 * Sockets that have not authenticated yet: each is dropped at its handshake
 * deadline, and past maxPendingSockets the oldest is dropped to make room,
 * so a flood of idle connections can delay a real user by one handshake at
 * most, never lock them out.
 */
class PendingSockets {
  private readonly deadlines = new Map<Socket, NodeJS.Timeout>();
  /** Each pending socket's network, for choosing whom to drop. */
  private readonly networks = new Map<Socket, string>();

  constructor(
    private readonly opts: WsServerOptions,
    private readonly stats: WsServerStats,
  ) {}

  add(socket: Socket): void {
    const timer = setTimeout(() => {
      this.stats.handshakeTimeouts++;
      this.drop(socket);
    }, this.opts.handshakeTimeoutMs);
    this.deadlines.set(socket, timer);
    this.networks.set(socket, networkSource(socket.remoteAddress ?? 'unknown'));
    socket.once('close', () => this.forget(socket));
    while (this.deadlines.size > this.opts.maxPendingSockets) {
      this.stats.pendingDropped++;
      this.drop(this.oldestOfBusiestNetwork());
    }
  }

  /**
   * The oldest pending socket of the network holding the most: a flood from a
   * few networks drops its own sockets, not a token holder's handshake from
   * elsewhere (131,000 sockets from 40 addresses once cost 3 of 21 healthy
   * clients their connection).
   */
  private oldestOfBusiestNetwork(): Socket {
    const counts = new Map<string, number>();
    for (const network of this.networks.values()) counts.set(network, (counts.get(network) ?? 0) + 1);
    let busiest: string | undefined;
    for (const [network, count] of counts) if (busiest === undefined || count > counts.get(busiest)!) busiest = network;
    for (const [socket, network] of this.networks) if (network === busiest) return socket;
    return this.deadlines.keys().next().value!;
  }

  authenticated(socket: Socket): void {
    this.forget(socket);
  }

  clear(): void {
    for (const socket of [...this.deadlines.keys()]) this.drop(socket);
  }

  private drop(socket: Socket): void {
    this.forget(socket);
    socket.destroy();
  }

  private forget(socket: Socket): void {
    clearTimeout(this.deadlines.get(socket));
    this.deadlines.delete(socket);
    this.networks.delete(socket);
  }
}

/**
 * What every connection holds of messages it began and has not finished
 * (fragments of a message that never ends, a frame whose length arrived and
 * whose bytes trickle): each is capped by maxMessageBytes, and together by
 * maxIncompleteMessageBytes. Past the budget the connection holding the most
 * is closed, so a crowd of hoarders costs themselves, not a user mid-paste.
 */
/** A message is paced only past this much unfinished: an ordinary frame is never held back. */
const PACE_UNFINISHED_AFTER_BYTES = 64 * 1024;

class UnfinishedMessages {
  private readonly held = new Map<WsServerLink, () => number>();
  /** The host-wide rate for unfinished messages, as a bucket of one second's bytes. */
  private paceTokens: number;
  private paceRefilledAt = performance.now();
  private readonly pacedSockets = new Set<Socket>();
  /** When each connection's current unfinished message began (as first seen). */
  private readonly since = new Map<WsServerLink, number>();
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: WsServerOptions,
    private readonly stats: WsServerStats,
  ) {
    this.paceTokens = opts.incompleteMessageBytesPerSecond;
  }

  watch(link: WsServerLink, ws: WebSocket): void {
    const internals = ws as unknown as WsInternals & { _socket?: Socket };
    const receiver = internals._receiver;
    if (!receiver || !internals._socket) return;
    this.held.set(link, () => receiver._totalPayloadLength ?? 0);
    const socket = internals._socket;
    // Added after ws's own 'data' listener: the receiver has taken this chunk in when it runs.
    socket.on('data', (chunk: Buffer) => {
      this.check();
      if ((receiver._totalPayloadLength ?? 0) > PACE_UNFINISHED_AFTER_BYTES) this.pace(socket, chunk.length);
    });
    ws.once('close', () => this.forget(link));
  }

  private forget(link: WsServerLink): void {
    this.held.delete(link);
    this.since.delete(link);
  }

  /**
   * Takes `bytes` from the host-wide rate for unfinished messages; past it the
   * socket is not read until its bytes are due. A flood of huge unfinished
   * messages then costs the host a bounded rate of reading and garbage,
   * whatever the number of connections, and everyone else's frames go on.
   */
  private pace(socket: Socket, bytes: number): void {
    const rate = this.opts.incompleteMessageBytesPerSecond;
    const now = performance.now();
    this.paceTokens = Math.min(rate, this.paceTokens + ((now - this.paceRefilledAt) / 1000) * rate);
    this.paceRefilledAt = now;
    this.paceTokens -= bytes;
    if (this.paceTokens >= 0 || this.pacedSockets.has(socket)) return;
    this.stats.incompletePaced++;
    this.pacedSockets.add(socket);
    socket.pause();
    setTimeout(() => {
      this.pacedSockets.delete(socket);
      if (!socket.destroyed) socket.resume();
    }, Math.ceil((-this.paceTokens / rate) * 1000)).unref();
  }

  private check(): void {
    let total = 0;
    let largest: [WsServerLink, number] | undefined;
    const now = Date.now();
    for (const [link, bytes] of this.held) {
      const n = bytes();
      total += n;
      if (!largest || n > largest[1]) largest = [link, n];
      if (n === 0) this.since.delete(link);
      else if (!this.since.has(link)) this.since.set(link, now);
    }
    this.watchDeadlines();
    if (total <= this.opts.maxIncompleteMessageBytes || !largest) return;
    this.stats.incompleteBudgetClosed++;
    this.forget(largest[0]);
    largest[0].close(`INCOMPLETE_MESSAGE_BUDGET: ${total} bytes of unfinished messages on this host > maxIncompleteMessageBytes ${this.opts.maxIncompleteMessageBytes}; this connection held ${largest[1]}`, CLOSE_POLICY);
  }

  /** A sender that stops mid-message sends nothing more to check on: a timer looks while any message is unfinished. */
  private watchDeadlines(): void {
    if (this.since.size === 0 || this.deadlineTimer) return;
    const period = Math.max(10, Math.min(1_000, this.opts.incompleteMessageDeadlineMs / 4));
    this.deadlineTimer = setInterval(() => {
      const now = Date.now();
      for (const [link, began] of this.since) {
        if ((this.held.get(link)?.() ?? 0) === 0) this.since.delete(link);
        else if (now - began > this.opts.incompleteMessageDeadlineMs) {
          this.stats.incompleteTimedOut++;
          this.forget(link);
          link.close(`INCOMPLETE_MESSAGE_TIMEOUT: a message begun ${now - began} ms ago is unfinished > incompleteMessageDeadlineMs ${this.opts.incompleteMessageDeadlineMs}`, CLOSE_POLICY);
        }
      }
      if (this.since.size === 0) {
        clearInterval(this.deadlineTimer);
        this.deadlineTimer = undefined;
      }
    }, period);
    this.deadlineTimer.unref();
  }
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
  /** When the peer last sent a message (pongs are not messages), for evictIdleAfterMs. */
  lastMessageAt = performance.now();
  /** Closed to let a newcomer in; its socket may not have closed yet. */
  evicted = false;

  constructor(
    ws: WebSocket,
    private readonly opts: WsServerOptions,
    private readonly stats: WsServerStats,
    readonly network: string,
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
      this.lastMessageAt = performance.now();
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
