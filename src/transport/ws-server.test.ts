import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeFrame, encodeFrame } from '../codec/header.js';
import { Op } from '../codec/opcodes.js';
import { RawPeer } from '../../test/helpers/raw-peer.js';
import { waitFor } from '../../test/helpers/wait-for.js';
import type { FrameLink } from './link.js';
import { startWsServer, type WsServer, type WsServerOptions } from './ws-server.js';
import { upgradeStatus } from '../../test/helpers/upgrade-status.js';

const TOKEN = 'correct horse battery staple';
let server: WsServer | undefined;
const links: FrameLink[] = [];
const received: Array<{ link: number; bytes: Uint8Array }> = [];
const closes: Array<{ link: number; reason: string }> = [];

afterEach(async () => {
  await server?.close();
  server = undefined;
  links.length = 0;
  received.length = 0;
  closes.length = 0;
});

/** A server whose links echo every frame back, so a test can see a connection still works. */
async function start(options: Partial<WsServerOptions> = {}): Promise<WsServer> {
  server = await startWsServer({
    token: TOKEN,
    ...options,
    onLink: (link) => {
      const index = links.push(link) - 1;
      link.attach({
        frame: (bytes) => {
          received.push({ link: index, bytes });
          link.send(bytes);
        },
        close: (reason) => closes.push({ link: index, reason }),
      });
    },
  });
  return server;
}


const frame = (streamId: number, size = 0) => encodeFrame({ opcode: Op.Input, streamId, payload: new Uint8Array(size).fill(0x61) });

describe('WebSocket server transport', () => {
  it('refuses a wrong, missing or non-bearer token with HTTP 401 before the upgrade', async () => {
    const { url } = await start({ authFailureDelayMs: 1 }); // five failures in a row: keep the throttle's delay short
    expect(await upgradeStatus(url, { Authorization: 'Bearer wrong' })).toBe(401);
    expect(await upgradeStatus(url, { Authorization: `Bearer ${TOKEN}x` })).toBe(401);
    expect(await upgradeStatus(url, {})).toBe(401);
    expect(await upgradeStatus(url, { Authorization: `Basic ${TOKEN}` })).toBe(401);
    expect(await upgradeStatus(`${url}/?token=${encodeURIComponent(TOKEN)}`, {})).toBe(401);
    expect(links).toHaveLength(0);
    expect(server!.stats.authRefused).toBe(5);
    expect(await upgradeStatus(url, { Authorization: `Bearer ${TOKEN}` })).toBe(101);
    await waitFor(() => links.length === 1, { what: 'the authenticated link' });
  });

  it('answers a plain HTTP request with 426', async () => {
    const { port } = await start();
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject).end();
    });
    expect(status).toBe(426);
  });

  it.each([
    ['maxConnections', { maxConnections: 2 }],
    ['maxConnectionsPerSource', { maxConnectionsPerSource: 2 }],
  ] as const)('lets a newcomer in at %s by closing the connection that sent nothing for longest, with 1008 CONNECTION_EVICTED_IDLE', async (limit, options) => {
    const { url } = await start({ ...options, evictIdleAfterMs: 0 });
    const busy = await RawPeer.connect(url, TOKEN);
    const idle = await RawPeer.connect(url, TOKEN);
    await waitFor(() => links.length === 2, { what: 'both links' });
    busy.sendRaw(frame(1));
    await waitFor(() => busy.frames.length === 1, { what: "the busy connection's echo" });
    const newcomer = await RawPeer.connect(url, TOKEN);
    await waitFor(() => idle.closeInfo !== undefined, { what: 'the idle connection closed' });
    expect(idle.closeInfo?.code).toBe(1008);
    expect(idle.closeInfo?.reason).toMatch(new RegExp(`^CONNECTION_EVICTED_IDLE: idle \\d+ ms, the longest >= evictIdleAfterMs 0, at ${limit} 2$`));
    expect(server!.stats).toMatchObject({ idleEvicted: 1, connectionsRefused: 0 });
    for (const peer of [busy, newcomer]) {
      peer.sendRaw(frame(2));
      await waitFor(() => peer.frames.some((f) => f.streamId === 2), { what: 'an echo on a connection that stayed' });
      expect(peer.closeInfo).toBeUndefined();
    }
  });

  it('lets a newcomer in at a full host by closing the idlest connection of the network holding two more than its own, with 1008 CONNECTION_EVICTED_SHARE', async () => {
    const { url } = await start({ maxConnections: 3 });
    const from = (address: string) => RawPeer.connect(url, TOKEN, { localAddress: address });
    const [heavyIdle, heavyBusy, other] = [await from('127.0.0.2'), await from('127.0.0.2'), await from('127.0.0.3')];
    await waitFor(() => links.length === 3, { what: 'three links' });
    heavyBusy.sendRaw(frame(1));
    await waitFor(() => heavyBusy.frames.length === 1, { what: "the busy connection's echo" });
    const newcomer = await from('127.0.0.4');
    await waitFor(() => heavyIdle.closeInfo !== undefined, { what: "the heavy network's idle connection closed" });
    expect(heavyIdle.closeInfo?.code).toBe(1008);
    expect(heavyIdle.closeInfo?.reason).toMatch(/^CONNECTION_EVICTED_SHARE: idle \d+ ms, the longest of 2, the most from one network, at maxConnections 3$/);
    expect(server!.stats).toMatchObject({ shareEvicted: 1, idleEvicted: 0, connectionsRefused: 0 });
    // Shares are even now (one each): the next newcomer is refused, and nobody is closed for it.
    await expect(from('127.0.0.5')).rejects.toThrow('HTTP 503');
    expect(server!.stats).toMatchObject({ shareEvicted: 1, connectionsRefused: 1 });
    for (const peer of [heavyBusy, other, newcomer]) {
      peer.sendRaw(frame(2));
      await waitFor(() => peer.frames.some((f) => f.streamId === 2), { what: 'an echo on a connection that stayed' });
      expect(peer.closeInfo).toBeUndefined();
    }
  });

  it('closes only the connection that sent an oversized message, with 1009 naming the limit and the size', async () => {
    const { url } = await start({ maxMessageBytes: 1024 });
    const big = await RawPeer.connect(url, TOKEN);
    const good = await RawPeer.connect(url, TOKEN);
    big.sendRaw(frame(1, 2000));
    await waitFor(() => big.closeInfo !== undefined, { what: 'the oversized sender to be closed' });
    expect(big.closeInfo).toEqual({ code: 1009, reason: 'message 2016 bytes > maxMessageBytes 1024' });
    expect(server!.stats.oversizedClosed).toBe(1);
    expect(received).toEqual([]); // nothing of the oversized message reached the link
    await waitFor(() => closes.length === 1, { what: 'the link close handler' });
    good.sendRaw(frame(2, 1000));
    await waitFor(() => good.frames.length === 1, { what: 'the echo on the other connection' });
    expect(good.frames[0]!.streamId).toBe(2);
    expect(good.closeInfo).toBeUndefined();
    await good.close();
  });

  it('bounds unfinished messages host-wide: past the budget the connection holding the most is closed with 1008, and a user mid-paste goes on', async () => {
    const { url } = await start({ maxMessageBytes: 1024 * 1024, maxIncompleteMessageBytes: 2 * 1024 * 1024 });
    const user = await RawPeer.connect(url, TOKEN);
    const hoarders = await Promise.all([0, 1, 2].map(() => RawPeer.connect(url, TOKEN)));
    // A message begun and never finished: fragments without FIN, 900 KiB each, 2.7 MiB in all.
    const fragment = new Uint8Array(900 * 1024).fill(0x61);
    user.ws.send(frame(1, 100 * 1024).subarray(0, 50 * 1024), { binary: true, fin: false }); // the user's paste, half sent
    for (const h of hoarders) h.ws.send(fragment, { binary: true, fin: false });
    await waitFor(() => hoarders.some((h) => h.closeInfo !== undefined), { what: 'a hoarder closed for the budget' });
    const closed = hoarders.filter((h) => h.closeInfo !== undefined);
    expect(closed).toHaveLength(1);
    expect(closed[0]!.closeInfo!.code).toBe(1008);
    expect(closed[0]!.closeInfo!.reason).toMatch(/^INCOMPLETE_MESSAGE_BUDGET: \d+ bytes of unfinished messages on this host > maxIncompleteMessageBytes 2097152/);
    expect(server!.stats.incompleteBudgetClosed).toBe(1);
    // The user finishes the paste and is echoed.
    user.ws.send(frame(1, 100 * 1024).subarray(50 * 1024), { binary: true, fin: true });
    await waitFor(() => user.frames.length === 1, { what: "the user's finished message echoed" });
    expect(user.closeInfo).toBeUndefined();
    await Promise.all([user, ...hoarders].map((p) => p.close()));
  });

  it('reads large unfinished messages no faster than incompleteMessageBytesPerSecond over all connections, loses nothing of them, and never holds back a small frame', async () => {
    const { url } = await start({ maxMessageBytes: 8 * 1024 * 1024, incompleteMessageBytesPerSecond: 1024 * 1024 });
    const flooder = await RawPeer.connect(url, TOKEN);
    const user = await RawPeer.connect(url, TOKEN);
    // 3 MiB of one message, sent at once: three seconds' worth of the rate.
    const message = frame(3, 3 * 1024 * 1024);
    flooder.ws.send(message.subarray(0, message.length - 1), { binary: true, fin: false });
    await waitFor(() => server!.stats.incompletePaced > 0, { what: 'the flooding socket paced' });
    user.sendRaw(frame(4));
    await waitFor(() => user.frames.length === 1, { what: 'the small frame echoed while the flood is paced' });
    expect(flooder.frames).toHaveLength(0);
    flooder.ws.send(message.subarray(message.length - 1), { binary: true, fin: true });
    await waitFor(() => flooder.frames.length === 1, { what: 'the whole message echoed once its pace allowed', timeoutMs: 15_000 });
    expect(flooder.frames[0]!.bytes.length).toBe(message.length);
    await Promise.all([flooder, user].map((p) => p.close()));
  });

  it('closes a connection whose message stays unfinished past the deadline, with 1008 naming it; one that finishes its messages stays', async () => {
    const { url } = await start({ incompleteMessageDeadlineMs: 300 });
    const stalled = await RawPeer.connect(url, TOKEN);
    const steady = await RawPeer.connect(url, TOKEN);
    stalled.ws.send(new Uint8Array(1024).fill(0x61), { binary: true, fin: false }); // begun, never finished
    steady.sendRaw(frame(1, 100));
    await waitFor(() => stalled.closeInfo !== undefined, { what: 'the stalled sender closed' });
    expect(stalled.closeInfo!.code).toBe(1008);
    expect(stalled.closeInfo!.reason).toMatch(/^INCOMPLETE_MESSAGE_TIMEOUT: a message begun \d+ ms ago is unfinished > incompleteMessageDeadlineMs 300$/);
    expect(server!.stats.incompleteTimedOut).toBe(1);
    steady.sendRaw(frame(2, 100));
    await waitFor(() => steady.frames.length === 2, { what: 'both of the steady sender\'s messages echoed' });
    expect(steady.closeInfo).toBeUndefined();
    await Promise.all([stalled.close(), steady.close()]);
  });

  it('refuses a text message with an Error frame and keeps the connection', async () => {
    const { url } = await start();
    const peer = await RawPeer.connect(url, TOKEN);
    peer.ws.send('hello', { binary: false });
    await waitFor(() => peer.frames.length === 1, { what: 'the TEXT_MESSAGE Error frame' });
    expect(peer.errors(0)).toEqual(['TEXT_MESSAGE: text message of 5 bytes refused: frames are binary messages']);
    expect(server!.stats.textMessagesRefused).toBe(1);
    expect(received).toEqual([]);
    peer.sendRaw(frame(3));
    await waitFor(() => peer.frames.length === 2, { what: 'the echo after the text message' });
    expect(decodeFrame(peer.frames[1]!.bytes).ok).toBe(true);
    await peer.close();
  });

  it('drops a connection that stops answering pings, and keeps one that answers', async () => {
    const { url } = await start({ pingIntervalMs: 20, pongDeadlineMs: 200 });
    // autoPong: false makes this a real peer that has gone deaf to pings (a black-holed client).
    const deaf = await RawPeer.connect(url, TOKEN, { autoPong: false });
    const alive = await RawPeer.connect(url, TOKEN);
    await waitFor(() => deaf.closeInfo !== undefined, { what: 'the deaf connection to be dropped' });
    expect(server!.stats.livenessDropped).toBe(1);
    expect(closes.map((c) => c.reason)).toEqual(['liveness: no pong within 200ms']);
    alive.sendRaw(frame(4));
    await waitFor(() => alive.frames.length === 1, { what: 'the live connection to still echo' });
    expect(alive.closeInfo).toBeUndefined();
    await alive.close();
  });

  it('keeps a connection whose pong arrived while this process was stalled past the deadline (a blocking write to a slow terminal, a loaded machine)', async () => {
    // Deadlines far above a loaded machine's scheduling delays: only the stall may exceed them.
    const { url } = await start({ pingIntervalMs: 200, pongDeadlineMs: 1000 });
    // The peer in a process of its own, so it answers while this one is stalled.
    const peer = spawn(process.execPath, ['-e', `const W = require('ws'); const w = new W(${JSON.stringify(url)}, { headers: { Authorization: 'Bearer ${TOKEN}' } }); w.on('open', () => console.log('open')); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await waitFor(() => links.length === 1, { what: 'the peer process connected' });
      // Right after each of three pings, this process stalls past the deadline, as a blocking write in an I/O callback
      // would: the next loop turn runs the expired deadline timer before it reads the pong that came meanwhile.
      let stalls = 0;
      const ws = (links[0] as unknown as { ws: WebSocket }).ws;
      const ping = ws.ping.bind(ws);
      ws.ping = (data?: unknown) => {
        ping(data);
        if (stalls < 3) {
          setImmediate(() => {
            const until = performance.now() + 1500; // a stall, not a wait: nothing else runs meanwhile
            while (performance.now() < until) {}
            stalls++;
          });
        }
      };
      await waitFor(() => stalls === 3 || closes.length > 0, { what: 'three stalls past the pong deadline', timeoutMs: 20_000 });
      expect(closes).toEqual([]);
      expect(server!.stats.livenessDropped).toBe(0);
    } finally {
      peer.kill();
    }
  });

  it("keeps a peer whose frames keep coming while its pong waits behind them, and drops it once they stop", async () => {
    const { url } = await start({ pingIntervalMs: 20, pongDeadlineMs: 500 });
    // autoPong: false stands for a pong queued behind a slow link's output: it never comes, the frames do.
    const peer = await RawPeer.connect(url, TOKEN, { autoPong: false });
    const sending = setInterval(() => peer.sendRaw(frame(6)), 25);
    try {
      await waitFor(() => peer.frames.length >= 80 || closes.length > 0, { what: 'frames for four pong deadlines', timeoutMs: 20_000 });
      expect(closes).toEqual([]);
    } finally {
      clearInterval(sending);
    }
    await waitFor(() => closes.length === 1, { what: 'the drop once the frames stopped' });
    expect(closes[0]!.reason).toBe('liveness: no pong within 500ms');
  });
});

describe('a link the application cannot take', () => {
  it('is closed and logged, and the server goes on serving (a host closing while a client reconnects threw here and ended the process)', async () => {
    const logged: string[] = [];
    let refuse = true;
    server = await startWsServer({
      token: TOKEN,
      log: (line) => logged.push(line),
      onLink: (link) => {
        if (refuse) throw new Error('HostRuntime.accept after close()');
        link.attach({ frame: (bytes) => link.send(bytes), close: () => {} });
      },
    });
    const refused = await RawPeer.connect(server.url, TOKEN);
    await refused.waitFor(() => refused.closeInfo !== undefined, 'the refused link closed');
    expect(refused.closeInfo?.reason).toBe('not accepted');
    expect(logged).toEqual(['termwire: a connection was refused: HostRuntime.accept after close()']);
    refuse = false;
    const served = await RawPeer.connect(server.url, TOKEN);
    served.sendRaw(frame(3));
    await served.waitFor(() => served.frames.length === 1, 'the echo on a link accepted afterwards');
    served.ws.close();
  });
});
