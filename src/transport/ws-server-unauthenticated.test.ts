import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../../test/helpers/wait-for.js';
import { AuthThrottle } from './auth-throttle.js';
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

  it('answers each failed authentication from a source later than the last, logs each, and keeps the token holder unaffected', async () => {
    const { url } = await start({ authFailureDelayMs: 40, authFailureMaxDelayMs: 160 });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const { status, ms } = await attempt(url, `wrong-${i}`);
      expect(status).toBe(401);
      delays.push(ms);
    }
    expect(delays[0]).toBeGreaterThanOrEqual(40);
    expect(delays[1]).toBeGreaterThanOrEqual(80);
    expect(delays[2]).toBeGreaterThanOrEqual(160);
    expect(delays[3]).toBeGreaterThanOrEqual(160); // the ceiling
    expect(logged).toHaveLength(4);
    expect(logged[1]).toBe('termwire: authentication failed from 127.0.0.1 (wrong token); failure 2 from it, answered after 80ms');
    const good = await attempt(url, TOKEN);
    expect(good.status).toBe(101);
    expect(good.ms).toBeLessThan(160); // the right token is never held back
  });
});

describe('AuthThrottle', () => {
  const options = { authFailureDelayMs: 100, authFailureMaxDelayMs: 1_000, authFailureForgetMs: 10_000, authLogLinesPerMinute: 2 };

  it('logs at most authLogLinesPerMinute lines, then one line counting the rest', () => {
    let now = 0;
    const lines: string[] = [];
    const throttle = new AuthThrottle(options, (line) => lines.push(line), () => now);
    for (let i = 0; i < 5; i++) throttle.failed('10.0.0.1', 'wrong token');
    expect(lines).toHaveLength(2);
    now = 60_000;
    throttle.failed('10.0.0.1', 'wrong token');
    expect(lines.slice(2)).toEqual(['termwire: 3 more authentication failures in the last minute not logged', 'termwire: authentication failed from 10.0.0.1 (wrong token); failure 1 from it, answered after 100ms']); // quiet past authFailureForgetMs: forgiven
  });

  it('keeps sources apart and forgives one that stayed quiet for authFailureForgetMs', () => {
    let now = 0;
    const throttle = new AuthThrottle(options, () => {}, () => now);
    expect([throttle.failed('a', 'x'), throttle.failed('a', 'x'), throttle.failed('b', 'x')]).toEqual([100, 200, 100]);
    now = 10_001;
    expect(throttle.failed('a', 'x')).toBe(100);
  });
});
