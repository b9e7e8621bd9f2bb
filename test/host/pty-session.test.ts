import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { replaySnapshot } from '../../src/host/screen.js';
import { startTestHost, type TestHost } from './harness.js';

let testHost: TestHost | undefined;
afterEach(async () => {
  expect(testHost?.host.counters.internalErrors ?? 0).toBe(0);
  await testHost?.close();
  testHost = undefined;
});

describe('host with a real bash in a PTY', () => {
  it('sends a typed command\'s output in Output frames, and snapshots that rebuild the host screen', async () => {
    testHost = await startTestHost({ terminals: (name) => (name === 'bash' ? new PtyBackend({ command: 'bash', env: { PS1: 'pty$ ' } }) : undefined) });
    const peer = await testHost.connect();
    peer.subscribe(1, 'bash', { capabilities: { ackOutput: 1 } });
    await peer.waitFor(() => peer.snapshots(1).length === 1, 'initial snapshot on stream 1');
    const subscribed = peer.json(peer.on(1, Op.Metadata)[0]!);
    expect(subscribed).toMatchObject({ type: 'subscribed', streamId: 1, terminal: 'bash', cols: 80, rows: 24, truncated: false, capabilities: { ackOutput: 1 } });
    expect(peer.snapshots(1)[0]!.start).toMatchObject({ kind: 'scrollback', source: 'subscribe', seq: subscribed.seq });

    peer.send('Input', 1, 'echo $((6*7))x\r');
    await peer.waitFor(() => peer.outputText(1).includes('42x'), 'the command output 42x in Output frames');

    // Output seq is the running UTF-8 byte count: each frame continues the last.
    let last = peer.snapshots(1)[0]!.seq;
    for (const f of peer.on(1, Op.Output)) {
      if (f.seq <= last) continue; // covered by the initial snapshot
      expect(f.seq - f.payload.length).toBe(last);
      last = f.seq;
    }

    const terminal = testHost.host.terminal('bash')!;
    // Wait for the prompt after the output, so bash is idle when the snapshot is taken.
    await peer.waitFor(async () => /42x\npty\$$/.test(await terminal.screen.text()), 'host screen shows 42x and the next prompt');
    peer.send('SnapshotRequest', 1, { requestId: 'reveal-1' });
    await peer.waitFor(() => peer.snapshots(1).length === 2, 'requested snapshot');
    const requested = peer.snapshots(1)[1]!;
    expect(requested.start).toMatchObject({ requestId: 'reveal-1', source: 'request', cols: 80, rows: 24 });
    await terminal.screen.settled();
    expect(requested.seq).toBe(terminal.seq); // bash is idle: the snapshot covers everything
    expect(await replaySnapshot(requested.text, 80, 24)).toBe(await terminal.screen.text());
    expect(await terminal.screen.text()).toContain('42x');
  });
});
