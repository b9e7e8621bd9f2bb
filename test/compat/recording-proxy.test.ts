import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { RecordingProxy } from '../../compat/journey/recording-proxy.js';
import { waitFor } from '../helpers/wait-for.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function upstream(): Promise<{ url: string; received: Uint8Array[]; opened: () => number; ended: () => number }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const received: Uint8Array[] = [];
  let ended = 0;
  let opened = 0;
  server.on('connection', (ws) => {
    opened++;
    ws.on('message', (data) => received.push(new Uint8Array(data as Buffer)));
    ws.on('close', () => ended++);
  });
  cleanup.push(() => new Promise<void>((resolve) => (server.clients.forEach((c) => c.terminate()), server.close(() => resolve()))));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, received, opened: () => opened, ended: () => ended };
}

/** A listening proxy in front of `hostUrl`, closed after the test. */
async function proxyTo(hostUrl: string): Promise<{ proxy: RecordingProxy; url: string }> {
  const proxy = new RecordingProxy();
  const url = await proxy.listen();
  cleanup.push(() => proxy.close());
  proxy.connectTo({ url: hostUrl, token: 'unused-by-this-upstream' });
  return { proxy, url };
}

describe('the recording proxy', () => {
  it('holds a connection made while holding in its handshake until released, then records it under the step current then', async () => {
    const host = await upstream();
    const { proxy, url } = await proxyTo(host.url);
    proxy.step = 'drop';
    proxy.holdNewConnections = true;
    const client = new WebSocket(url, { headers: { authorization: `Bearer ${proxy.token}` } });
    cleanup.push(() => client.terminate());
    // Observed state, not time: the proxy has the upgrade request, and the client is still connecting (it cannot ping a held link).
    await waitFor(() => proxy.heldConnections === 1, { what: 'the connection held in its handshake' });
    expect([client.readyState, proxy.connectionCount]).toEqual([WebSocket.CONNECTING, 0]);
    proxy.step = 'resubscribe';
    proxy.holdNewConnections = false;
    await new Promise<void>((resolve) => client.once('open', () => resolve()));
    client.send(Uint8Array.of(1, 2, 3));
    await waitFor(() => host.received.length === 1, { what: 'the held frame to reach the host after release' });
    expect(proxy.frames.map((f) => [f.direction, f.step, [...f.bytes]])).toEqual([['clientToHost', 'resubscribe', [1, 2, 3]]]);
  });

  it('holds what the host sends the client, and only that, until released; then forwards and records it in order', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    cleanup.push(() => new Promise<void>((resolve) => (server.clients.forEach((c) => c.terminate()), server.close(() => resolve()))));
    const fromClient: Uint8Array[] = [];
    const hostSide = new Promise<WebSocket>((resolve) => server.once('connection', (ws) => (ws.on('message', (d) => fromClient.push(new Uint8Array(d as Buffer))), resolve(ws))));
    const proxy = new RecordingProxy();
    const url = await proxy.listen();
    cleanup.push(() => proxy.close());
    proxy.connectTo({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'unused-by-this-upstream' });
    const client = new WebSocket(url, { headers: { authorization: `Bearer ${proxy.token}` } });
    cleanup.push(() => client.terminate());
    const toClient: number[][] = [];
    client.on('message', (d) => toClient.push([...new Uint8Array(d as Buffer)]));
    await new Promise<void>((resolve) => client.once('open', () => resolve()));
    const host = await hostSide;
    proxy.step = 'ignoredOutput';
    proxy.holdToClient('primary');
    host.send(Uint8Array.of(1));
    host.send(Uint8Array.of(2));
    client.send(Uint8Array.of(9));
    await waitFor(() => proxy.heldToClient().length === 2 && fromClient.length === 1, { what: "both host frames held and the client's frame through" });
    // A pong still crosses a hold: liveness is not what it holds.
    const pong = new Promise<void>((resolve) => client.once('pong', () => resolve()));
    client.ping(Buffer.from('alive'));
    await pong;
    expect(toClient).toEqual([]);
    expect(proxy.frames.map((f) => f.direction)).toEqual(['clientToHost']);
    expect(proxy.releaseToClient()).toBe(2);
    host.send(Uint8Array.of(3));
    await waitFor(() => toClient.length === 3, { what: 'the held frames, then the next, at the client' });
    expect(toClient).toEqual([[1], [2], [3]]);
    expect(proxy.frames.filter((f) => f.direction === 'hostToClient').map((f) => [f.step, [...f.bytes]])).toEqual([['ignoredOutput', [1]], ['ignoredOutput', [2]], ['ignoredOutput', [3]]]);
  });

  it('records a connection the client gave up on its own (no close frame, the proxy forwarding), and no drop of its own nor the journey\'s end', async () => {
    const host = await upstream();
    const { proxy, url } = await proxyTo(host.url);
    let bridged = 0;
    const connect = async () => {
      const client = new WebSocket(url, { headers: { authorization: `Bearer ${proxy.token}` } });
      cleanup.push(() => client.terminate());
      await new Promise<void>((resolve) => client.once('open', () => resolve()));
      const nth = ++bridged;
      await waitFor(() => host.opened() === nth, { what: 'the connection bridged to the host' });
      return client;
    };
    proxy.step = 'burst';
    // As a client's liveness ends a link: terminate, no close frame.
    (await connect()).terminate();
    await waitFor(() => proxy.unplannedEnds.length === 1, { what: 'the give-up recorded' });
    expect(proxy.unplannedEnds).toEqual([{ step: 'burst', connection: 1, client: 'primary' }]);
    proxy.step = 'drop';
    const dropped = await connect();
    const droppedClosed = new Promise<void>((resolve) => dropped.once('close', () => resolve()));
    proxy.drop('close');
    await droppedClosed;
    proxy.step = 'end';
    const last = await connect();
    proxy.journeyEnded();
    const lastClosed = new Promise<void>((resolve) => last.once('close', () => resolve()));
    last.terminate();
    await lastClosed;
    // The proxy ends the host's side of a connection once it has seen the client's side end.
    await waitFor(() => host.ended() === 3, { what: 'all three connections torn down at the host' });
    expect(proxy.unplannedEnds).toHaveLength(1);
  });

  it('refuses a client without the proxy token', async () => {
    const proxy = new RecordingProxy();
    const url = await proxy.listen();
    cleanup.push(() => proxy.close());
    const client = new WebSocket(url, { headers: { authorization: 'Bearer wrong' } });
    cleanup.push(() => client.terminate());
    const code = await new Promise<number>((resolve) => client.once('close', (c) => resolve(c)));
    expect(code).toBe(1008);
  });

  it('ends a connection still waiting in its handshake when it closes, whether for a host that never came or a hold', async () => {
    const proxy = new RecordingProxy();
    const url = await proxy.listen();
    proxy.holdNewConnections = true; // and no host named either
    const client = new WebSocket(url, { headers: { authorization: `Bearer ${proxy.token}` } });
    client.on('error', () => undefined);
    cleanup.push(() => client.terminate());
    await waitFor(() => proxy.heldConnections === 1, { what: 'the connection waiting for a host that never comes' });
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    await proxy.close(); // would wait forever for the held handshake
    await closed;
  });
});
