import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { startTestHost, type TestHost } from './harness.js';

// A real program in a real PTY that never reads its input (`sleep`): without a
// ceiling, node-pty queues every Input byte the kernel's PTY buffer cannot take.
const LIMIT = 256 * 1024;
const FRAME = 'x'.repeat(64 * 1024);

let testHost: TestHost | undefined;
afterEach(async () => {
  await testHost?.close();
  testHost = undefined;
});

describe('input queued toward a PTY whose program does not read', () => {
  it('stops at maxQueuedInputBytes with WRITE_UNAVAILABLE naming the limit, and another terminal is not affected', async () => {
    const backends = new Map<string, PtyBackend>();
    testHost = await startTestHost({
      terminals: (name) => {
        const backend = name === 'deaf' ? new PtyBackend({ command: 'sleep', args: ['100000'] }) : new PtyBackend({ command: 'bash', env: { PS1: 'ok$ ' } });
        backends.set(name, backend);
        return backend;
      },
      limits: { maxQueuedInputBytes: LIMIT },
    });
    const peer = await testHost.connect();
    peer.subscribe(1, 'deaf', { capabilities: { ackOutput: 1 } });
    peer.subscribe(2, 'shell', { capabilities: { ackOutput: 1 } });
    await peer.waitFor(() => peer.snapshots(1).length === 1 && peer.snapshots(2).length === 1, 'both snapshots');
    const refusals = () => peer.on(1, Op.Error).map((f) => new TextDecoder().decode(f.payload)).filter((t) => t.startsWith('WRITE_UNAVAILABLE:'));
    for (let i = 0; i < 32; i++) peer.send('Input', 1, FRAME); // 2 MiB at a program that reads none of it
    await peer.waitFor(() => refusals().length > 0, 'WRITE_UNAVAILABLE for the deaf terminal');
    expect(refusals()[0]).toMatch(new RegExp(`> maxQueuedInputBytes ${LIMIT}; this input was not written$`));
    // One frame past an empty queue is always taken, so the ceiling is the limit plus at most one frame.
    expect(backends.get('deaf')!.queuedInputBytes()).toBeLessThanOrEqual(LIMIT + FRAME.length);
    peer.send('Input', 2, 'echo $((6*7))y\r');
    await peer.waitFor(() => peer.outputText(2).includes('42y'), 'the other terminal still echoes');
    // Nothing queued toward a PTY outlives its terminal.
    const deaf = backends.get('deaf')!;
    deaf.kill();
    await peer.waitFor(() => deaf.exited, 'the deaf terminal to end');
    expect(deaf.queuedInputBytes()).toBe(0);
  }, 60_000);
});
