import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptBackend } from '../../src/host/script-backend.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, type TestHost } from './harness.js';

let test: TestHost | undefined;
afterEach(async () => {
  await test?.close();
  test = undefined;
});

/** Sends what `send` sends in one write of the socket, so the host reads it in one go. */
function inOneWrite(peer: RawPeer, send: () => void): void {
  const socket = (peer.ws as unknown as { _socket: Socket })._socket;
  socket.cork();
  send();
  socket.uncork();
}

describe('terminal starts, one per turn of the event loop', () => {
  it("reads another connection's frames between the starts of a burst of Subscribes, and the burst's own frames in order", async () => {
    const log: string[] = [];
    const backends = new Map<string, ScriptBackend>();
    test = await startTestHost({
      screenThread: 'inline',
      terminals: (name) => {
        log.push(`start ${name}`);
        const backend = new ScriptBackend({ banner: '$ ' });
        const write = backend.write.bind(backend);
        backend.write = (data) => (log.push(`${name} got ${data}`), write(data));
        backends.set(name, backend);
        return backend;
      },
    });
    const healthy = await test.connect();
    healthy.subscribe(1, 'healthy');
    await healthy.waitFor(() => healthy.snapshots(1).length === 1, 'the healthy terminal');
    const burst = await test.connect();
    log.length = 0;
    inOneWrite(burst, () => {
      for (let t = 1; t <= 8; t++) {
        burst.subscribe(t, `t${t}`);
        burst.send('Input', t, `to t${t}`, 1);
      }
    });
    healthy.send('Input', 1, 'typed meanwhile', 1);
    await burst.waitFor(() => burst.snapshots(8).length === 1, 'the last terminal of the burst');
    await healthy.waitFor(() => log.includes('healthy got typed meanwhile'), 'the healthy input');
    expect(log.indexOf('healthy got typed meanwhile'), `the healthy input came before the burst's last start: ${log.join(', ')}`).toBeLessThan(log.indexOf('start t8'));
    expect(log.filter((l) => !l.startsWith('healthy'))).toEqual(Array.from({ length: 8 }, (_, i) => [`start t${i + 1}`, `t${i + 1} got to t${i + 1}`]).flat());
  });
});
