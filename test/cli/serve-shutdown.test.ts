import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import { encodePayload } from '../../src/codec/payload.js';
import { waitFor } from '../helpers/wait-for.js';
import { killLeftoverServes, startServe, type ServeProcess } from './serve-process.js';

// SIGTERM against the real `node bin/termwire.js serve` (built): the process
// must be gone within 2 s whatever its peers do.

const EXIT_BUDGET_MS = 2_000;
const dir = mkdtempSync(join(tmpdir(), 'termwire-shutdown-'));
const tokenPath = join(dir, 'token');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  killLeftoverServes();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Sends SIGTERM and returns how long the process took to exit beyond what a
 * node process that exits at once on SIGTERM takes right after it, and its
 * exit code. The control takes away what a busy machine adds to any exit
 * (waiting for a core, tearing down the heap): what is left is the time
 * serve itself spent shutting down, which the 2 s budget is about.
 */
async function terminate(serve: ServeProcess): Promise<{ ms: number; code: number | string }> {
  const started = performance.now();
  serve.child.kill('SIGTERM');
  const code = await serve.exited;
  const ms = performance.now() - started;
  return { ms: ms - (await controlExitMs()), code };
}

/** How long a node process that does nothing and exits at once on SIGTERM takes to exit, from the signal. */
async function controlExitMs(): Promise<number> {
  const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => process.exit(0)); console.log('ready'); setInterval(() => {}, 1000);"], { stdio: ['ignore', 'pipe', 'ignore'] });
  cleanups.push(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = performance.now();
  child.kill('SIGTERM');
  await exited;
  return performance.now() - started;
}

async function authenticated(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${readFileSync(tokenPath, 'utf8').trim()}` } });
  cleanups.push(() => ws.terminate());
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => {}); // a reset when the server goes is what these tests cause
  return ws;
}

const frame = (opcode: number, streamId: number, payload: Uint8Array) => encodeFrame({ opcode, streamId, payload });
const subscribe = (ws: WebSocket, terminal: string) => ws.send(frame(Op.Subscribe, 0, encodePayload('Subscribe', { streamId: 1, terminal })));

/** A real serve with a bash terminal, and a client subscribed to it that counts the bytes it receives. */
async function subscribedToShell() {
  const serve = await startServe(['--token-file', tokenPath, '--shell', 'bash', '--no-login']);
  const ws = await authenticated(serve.url);
  let bytes = 0;
  ws.on('message', (data: Buffer) => (bytes += data.length));
  subscribe(ws, 'main');
  await waitFor(() => bytes > 0, { what: 'the subscription answered' });
  return { serve, ws, received: () => bytes };
}

describe('termwire serve on SIGTERM', () => {
  it('exits within 2 s with idle unauthenticated sockets open, one of them halfway through its request', async () => {
    const serve = await startServe(['--token-file', tokenPath, '--shell', 'bash', '--no-login']);
    for (const start of ['', 'GET / HTTP/1.1\r\nHost: x\r\n']) {
      const idle: Socket = connect(serve.port, '127.0.0.1');
      idle.on('error', () => {}); // the server resetting it on shutdown is the point
      cleanups.push(() => idle.destroy());
      await new Promise<void>((resolve) => idle.once('connect', () => resolve()));
      if (start) idle.write(start); // headers never finished: not an idle connection to node's http server
    }
    const { ms, code } = await terminate(serve);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(EXIT_BUDGET_MS);
  });

  it('exits within 2 s with a client that stopped reading while its shell floods output', async () => {
    const { serve, ws, received } = await subscribedToShell();
    ws.send(frame(Op.Input, 1, encodePayload('Input', 'yes termwire-flood-line\r')));
    await waitFor(() => received() > 256 * 1024, { what: 'the flood reaching the client' });
    (ws as unknown as { _socket: Socket })._socket.pause(); // stops reading: the host's writes back up
    const { ms, code } = await terminate(serve);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(EXIT_BUDGET_MS);
  });

  it('exits within 2 s with a 16 MiB paste in progress', async () => {
    const { serve, ws, received } = await subscribedToShell();
    ws.send(frame(Op.Input, 1, encodePayload('Input', 'cat > /dev/null\r')));
    const chunk = frame(Op.Input, 1, encodePayload('Input', 'p'.repeat(16 * 1024)));
    for (let i = 0; i < 1024; i++) ws.send(chunk); // 16 MiB, queued on the socket
    await waitFor(() => ws.bufferedAmount < 15 * 1024 * 1024, { what: 'the paste under way' });
    // A quiet machine drains 16 MiB fast: keep the paste flowing until the server is gone, so it is in progress when the signal comes.
    const flowing = setInterval(() => ws.readyState === ws.OPEN && ws.bufferedAmount < 4 * 1024 * 1024 && [0, 1, 2, 3].forEach(() => ws.send(chunk)), 1);
    const { ms, code } = await terminate(serve).finally(() => clearInterval(flowing));
    expect(code).toBe(0);
    expect(ms).toBeLessThan(EXIT_BUDGET_MS);
  });

  it('exits at once on a second signal, while the first shutdown waits for a client that stopped reading', async () => {
    const { serve, ws, received } = await subscribedToShell();
    ws.send(frame(Op.Input, 1, encodePayload('Input', 'yes termwire-flood-line\r')));
    await waitFor(() => received() > 256 * 1024, { what: 'the flood reaching the client' });
    (ws as unknown as { _socket: Socket })._socket.pause();
    serve.child.kill('SIGTERM');
    await waitFor(() => serve.stderr().includes('closing connections'), { what: 'the first shutdown begun' });
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(1);
    expect(serve.stderr()).toContain('termwire: second signal; exiting now');
  });
});
