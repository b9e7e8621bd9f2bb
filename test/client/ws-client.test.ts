import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FrameLink } from '../../src/transport/link.js';
import { connectWs, WsConnectError } from '../../src/transport/ws-client.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'good-token';

/** A real ws server that checks the bearer token on upgrade; autoPong decides whether it answers pings. */
async function startServer(autoPong: boolean): Promise<{ url: string; server: Server; sockets: WebSocket[]; pings: () => number }> {
  const wss = new WebSocketServer({ noServer: true, autoPong });
  const sockets: WebSocket[] = [];
  let pings = 0;
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.push(ws);
      ws.on('ping', () => pings++);
      ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })); // echo
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanups.push(() => {
    for (const ws of sockets) ws.terminate();
    wss.close();
    server.close();
  });
  return { url: `ws://127.0.0.1:${port}/`, server, sockets, pings: () => pings };
}

const cleanups: Array<() => void> = [];
const links: FrameLink[] = [];
afterEach(() => {
  for (const link of links.splice(0)) link.close('test over');
  for (const fn of cleanups.splice(0)) fn();
});

describe('connectWs over a real socket', () => {
  it('refuses a wrong token with AUTH_REFUSED', async () => {
    const { url } = await startServer(true);
    const error = await connectWs(url, { token: 'wrong' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WsConnectError);
    expect(error).toMatchObject({ code: 'AUTH_REFUSED', status: 401 });
  });

  it('reports a refused connection as CONNECT_FAILED', async () => {
    const { url, server } = await startServer(true);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await connectWs(url, { token: TOKEN }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('carries frames both ways', async () => {
    const { url } = await startServer(true);
    const link = await connectWs(url, { token: TOKEN });
    links.push(link);
    link.send(Uint8Array.of(0x74, 1, 2, 3));
    const got: number[][] = [];
    await waitFor(() => link.bufferedBytes === 0, { what: 'the frame handed to the socket' });
    link.attach({ frame: (bytes) => got.push([...bytes]), close: () => {} });
    await waitFor(() => got.length === 1, { what: 'the echoed frame' });
    expect(got).toEqual([[0x74, 1, 2, 3]]);
  });

  it('declares the link dead when the host never answers pings', async () => {
    const { url, pings } = await startServer(false);
    const link = await connectWs(url, { token: TOKEN, pingIntervalMs: 20, pongDeadlineMs: 60 });
    links.push(link);
    const reasons: string[] = [];
    link.attach({ frame: () => {}, close: (reason) => reasons.push(reason) });
    await waitFor(() => reasons.length > 0, { what: 'the liveness close' });
    expect(reasons).toEqual(['liveness: no pong within 60ms']);
    expect(pings()).toBe(1);
    expect(link.isOpen).toBe(false);
  });

  it('stays open across many pings while the host answers them', async () => {
    const { url, pings } = await startServer(true);
    // 40 pings 10 ms apart outlast the 250 ms deadline several times over, so a deadline a pong failed to clear would fire.
    const link = await connectWs(url, { token: TOKEN, pingIntervalMs: 10, pongDeadlineMs: 250 });
    links.push(link);
    const reasons: string[] = [];
    link.attach({ frame: () => {}, close: (reason) => reasons.push(reason) });
    await waitFor(() => pings() >= 40 || reasons.length > 0, { what: 'forty pings answered' });
    expect(reasons).toEqual([]);
    expect(link.isOpen).toBe(true);
  });

  it('closes the link when a message exceeds maxMessageBytes', async () => {
    const { url, sockets } = await startServer(true);
    const link = await connectWs(url, { token: TOKEN, maxMessageBytes: 64 });
    links.push(link);
    const reasons: string[] = [];
    const frames: Uint8Array[] = [];
    link.attach({ frame: (bytes) => frames.push(bytes), close: (reason) => reasons.push(reason) });
    await waitFor(() => sockets.length === 1, { what: 'the server side socket' });
    sockets[0]!.send(new Uint8Array(65));
    await waitFor(() => reasons.length === 1, { what: 'the close after an oversized message' });
    expect(frames).toEqual([]);
    expect(reasons[0]).toMatch(/Max payload size exceeded|1009/);
  });
});
