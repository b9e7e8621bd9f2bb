import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../../test/helpers/wait-for.js';
import { type Admission, AuthThrottle } from './auth-throttle.js';
import { startWsServer, type WsServer, type WsServerOptions } from './ws-server.js';
import { upgradeStatus } from '../../test/helpers/upgrade-status.js';

// Sockets that never authenticate, over real loopback TCP: they must neither
// pile up nor lock out the user who has the token.

const TOKEN = 'unauthenticated-test-token-0123456789';
let server: WsServer | undefined;
const sockets: Socket[] = [];
const logged: string[] = [];
let links = 0;

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
  logged.length = 0;
  links = 0;
});

async function start(options: Partial<WsServerOptions> = {}): Promise<WsServer> {
  server = await startWsServer({ token: TOKEN, ...options, log: (line) => logged.push(line), onLink: () => links++ });
  return server;
}

function idleSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {}); // the server dropping it is the point
  sockets.push(socket);
  return new Promise((resolve) => socket.once('connect', () => resolve(socket)));
}

/** The HTTP status of an upgrade with this token (101 when it opened), and how long the answer took. */
async function attempt(url: string, token: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const status = await upgradeStatus(url, { Authorization: `Bearer ${token}` });
  return { status, ms: performance.now() - started };
}

describe('unauthenticated sockets', () => {
  it('drops a socket that has not authenticated within handshakeTimeoutMs, headers half sent or none', async () => {
    const { port } = await start({ handshakeTimeoutMs: 100 });
    const silent = await idleSocket(port);
    const halfway = await idleSocket(port);
    halfway.write('GET / HTTP/1.1\r\nHost: x\r\n');
    await waitFor(() => silent.destroyed && halfway.destroyed, { what: 'both sockets dropped by the server' });
    expect(server!.stats.handshakeTimeouts).toBe(2);
  });

  it('lets the token holder in while 1,100 idle TCP connections are open', async () => {
    const { port, url } = await start(); // the defaults: maxPendingSockets 64
    for (let i = 0; i < 1_100; i++) await idleSocket(port);
    const open = () => sockets.filter((s) => !s.destroyed).length;
    await waitFor(() => open() <= 64, { what: `at most maxPendingSockets idle sockets left open (now ${open()})` });
    const started = performance.now();
    expect((await attempt(url, TOKEN)).status).toBe(101);
    expect(performance.now() - started).toBeLessThan(1_000);
    await waitFor(() => links === 1, { what: 'the authenticated link' });
    expect(server!.stats.pendingDropped).toBeGreaterThanOrEqual(1_100 - 64);
  });

  it("drops a flooding network's own pending sockets at maxPendingSockets, not a token holder's slow handshake from another address", async () => {
    const { port } = await start({ maxPendingSockets: 8 });
    // The token holder connects first and is slow to send its upgrade: the oldest pending socket.
    const holder = await idleSocket(port);
    // 100 idle sockets from another loopback address (another network to the server).
    for (let i = 0; i < 100; i++) {
      const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
      socket.on('error', () => {});
      sockets.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
    }
    await waitFor(() => server!.stats.pendingDropped >= 100 - 8, { what: 'the flood trimmed to maxPendingSockets' });
    expect(holder.destroyed).toBe(false);
    let answer = '';
    holder.on('data', (b: Buffer) => (answer += b.toString()));
    holder.write(`GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    await waitFor(() => answer.includes('\r\n'), { what: "the holder's upgrade answered" });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
  });

  it('judges each attempt from a network that failed later than the last, however many sockets it opens at once, and logs each failure', async () => {
    const { url } = await start({ authFailureDelayMs: 40, authFailureMaxDelayMs: 160, authFailuresPerSecond: 1000 });
    expect((await attempt(url, 'wrong-0')).status).toBe(401); // judged at once: loopback had no failure
    // Eight guesses in parallel: judged one at a time, each wait doubling to the 160 ms ceiling, so the last answer comes after their sum.
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(url, `wrong-${i + 1}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
    expect(performance.now() - started).toBeGreaterThanOrEqual(40 + 80 + 160 * 5);
    expect(server!.stats.authDeferred).toBeGreaterThanOrEqual(7); // the first may arrive after its turn came
    expect(logged).toHaveLength(9);
    expect(logged[1]).toBe('termwire: authentication failed from 127.0.0.1 (wrong token); failure 2 from 127.0.0.1, whose next attempt is judged after 80ms');
    // The token holder on the same network waits its turn too (at most the ceiling past the queue), then gets in.
    const good = await attempt(url, TOKEN);
    expect(good.status).toBe(101);
  });
});

describe('authenticated connections (maxConnections, maxConnectionsPerSource)', () => {
  /** Opens an authenticated connection and keeps it; resolves with its status, and the refusal's body when there is one. */
  function held(url: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (b: Buffer) => (body += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.once('open', () => {
        sockets.push((ws as unknown as { _socket: Socket })._socket);
        resolve({ status: 101, body: '' });
      });
      ws.once('error', (e) => (e.message.includes('Unexpected server response') ? undefined : reject(e)));
    });
  }

  it('answers one connection past maxConnectionsPerSource with 503 naming the limit; a place freed is taken again', async () => {
    const { url } = await start({ maxConnectionsPerSource: 3 });
    for (let i = 0; i < 3; i++) expect((await held(url)).status).toBe(101);
    expect(await held(url)).toEqual({ status: 503, body: 'CONNECTIONS_PER_SOURCE_LIMIT: 3 connections open from 127.0.0.1, maxConnectionsPerSource 3\n' });
    expect(server!.stats.connectionsRefused).toBe(1);
    sockets.pop()!.destroy();
    await waitFor(async () => (await upgradeStatus(url, { Authorization: `Bearer ${TOKEN}` })) === 101, { what: 'a place freed by a closed connection' });
  });

  it('answers one connection past maxConnections with 503 CONNECTIONS_PER_SERVER_LIMIT', async () => {
    const { url } = await start({ maxConnections: 2 });
    for (let i = 0; i < 2; i++) expect((await held(url)).status).toBe(101);
    expect(await held(url)).toEqual({ status: 503, body: 'CONNECTIONS_PER_SERVER_LIMIT: 2 connections open, maxConnections 2\n' });
  });
});

/** The wait of an admission, or 'refuse'. */
const waitOf = (a: Admission) => (a === 'refuse' ? a : a.waitMs);

describe('AuthThrottle', () => {
  const options = { authFailureDelayMs: 100, authFailureMaxDelayMs: 1_000, authFailureForgetMs: 10_000, authFailuresPerSecond: 10, authLogLinesPerMinute: 2, handshakeTimeoutMs: 5_000 };

  it('logs at most authLogLinesPerMinute lines, then one line counting the rest', () => {
    let now = 0;
    const lines: string[] = [];
    const throttle = new AuthThrottle(options, (line) => lines.push(line), () => now);
    for (let i = 0; i < 5; i++) throttle.failed('10.0.0.1', 'wrong token');
    expect(lines).toHaveLength(2);
    now = 60_000;
    throttle.failed('10.0.0.1', 'wrong token');
    expect(lines.slice(2)).toEqual(['termwire: 3 more authentication failures in the last minute not logged', 'termwire: authentication failed from 10.0.0.1 (wrong token); failure 1 from 10.0.0.0/24, whose next attempt is judged after 100ms']); // quiet past authFailureForgetMs: forgiven
  });

  it('keeps networks apart (a /24 is one), and forgives one that stayed quiet for authFailureForgetMs', () => {
    let now = 0;
    const throttle = new AuthThrottle(options, () => {}, () => now);
    expect([throttle.failed('10.0.0.1', 'x'), throttle.failed('10.0.0.99', 'x'), throttle.failed('10.0.1.1', 'x')]).toEqual([100, 200, 100]);
    now = 10_001;
    expect(throttle.failed('10.0.0.1', 'x')).toBe(100);
  });

  it('judges nothing later for a network that never failed; gives one that did one turn per attempt, each wait doubling', () => {
    let now = 0;
    const throttle = new AuthThrottle({ ...options, authFailuresPerSecond: 1000 }, () => {}, () => now);
    expect(throttle.admit('10.0.0.1')).toEqual({ waitMs: 0, turn: false });
    throttle.failed('10.0.0.1', 'x'); // next attempt after 100 ms
    throttle.failed('10.0.0.2', 'x'); // the same /24: two failures, the next attempt after 200 ms
    // Each attempt waiting doubles the wait after it, as a failure would: 200, then 400 more, then 800 more.
    expect([throttle.admit('10.0.0.3'), throttle.admit('10.0.0.4'), throttle.admit('10.0.0.5')].map(waitOf)).toEqual([200, 600, 1400]);
    expect(waitOf(throttle.admit('10.9.9.9'))).toBe(0);
  });

  it('in total: past authFailuresPerSecond failures in a second, every attempt waits for a host-wide turn, from any network', () => {
    const now = 0;
    const throttle = new AuthThrottle({ ...options, authFailureDelayMs: 1 }, () => {}, () => now);
    // Ten networks that each failed once (not past the rate): each network's next attempt takes a host-wide turn, 100 ms apart at 10 per second.
    for (let i = 0; i < 10; i++) throttle.failed(`10.0.${i}.1`, 'x');
    expect(waitOf(throttle.admit('10.9.9.9'))).toBe(0); // a network that never failed is not held while the total stays at the rate
    const waits = Array.from({ length: 10 }, (_, i) => waitOf(throttle.admit(`10.0.${i}.2`)));
    expect(waits).toEqual(Array.from({ length: 10 }, (_, i) => 1 + i * 100));
    // One failure more than the rate: now a network that never failed waits its host-wide turn too.
    throttle.failed('10.0.99.1', 'x');
    expect(waitOf(throttle.admit('10.8.8.8'))).toBe(1001);
  });

  it('gives a turn back when its attempt ends without failing (the right token, or a socket closed before its turn)', () => {
    const now = 0;
    const throttle = new AuthThrottle({ ...options, authFailuresPerSecond: 1000 }, () => {}, () => now);
    throttle.failed('10.0.0.1', 'x');
    const first = throttle.admit('10.0.0.2');
    expect(first).toEqual({ waitMs: 100, turn: true });
    throttle.release('10.0.0.2');
    // The released turn no longer doubles the waits after it: 300 then 500 (it would be 300 then 700).
    expect([throttle.admit('10.0.0.3'), throttle.admit('10.0.0.4')].map(waitOf)).toEqual([300, 500]);
  });

  it('refuses at once, unjudged, an attempt whose turn is further off than the handshake deadline', () => {
    const now = 0;
    const throttle = new AuthThrottle({ ...options, authFailureMaxDelayMs: 4_000, handshakeTimeoutMs: 5_000, authFailuresPerSecond: 1000 }, () => {}, () => now);
    throttle.failed('10.0.0.1', 'x');
    expect([throttle.admit('10.0.0.2'), throttle.admit('10.0.0.3'), throttle.admit('10.0.0.4'), throttle.admit('10.0.0.5')].map(waitOf)).toEqual([100, 300, 700, 1500]);
    expect(waitOf(throttle.admit('10.0.0.6'))).toBe(3100);
    expect(throttle.admit('10.0.0.7')).toBe('refuse');
  });
});
