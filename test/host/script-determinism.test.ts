import { describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import { startTestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

/** One fixed journey against a fresh host; returns every frame the host sent, byte for byte. */
async function journey(): Promise<string[]> {
  // The instance id is the one random field on the wire: fixed here so runs compare byte for byte.
  const testHost = await startTestHost({ terminals: scriptTerminals('a'), newInstanceId: () => 'instance-a' });
  try {
    const peer = await testHost.connect();
    peer.subscribe(1, 'a', { capabilities: { ackOutput: 1, outputPause: 1, writeUnavailable: 1 } });
    await peer.waitFor(() => peer.snapshots(1).length === 1, 'initial snapshot');
    peer.send('Input', 1, 'echo hi\x7f\x7fok\r');
    await peer.waitFor(() => peer.outputText(1).includes('ran: echo ok'), 'the line to run');
    (testHost.host.terminal('a')!.backend as ScriptBackend).emit('live ✓ output\r\n');
    await peer.waitFor(() => peer.outputText(1).includes('live ✓'), 'live output');
    peer.send('SnapshotRequest', 1, { requestId: 'r1' });
    await peer.waitFor(() => peer.snapshots(1).length === 2, 'requested snapshot');
    peer.send('Unsubscribe', 1, undefined);
    await peer.waitFor(() => peer.on(1, Op.Metadata).length === 2, 'unsubscribed event');
    expect(testHost.host.terminal('a')!.backend.cols).toBe(80);
    return peer.frames.map((f) => Buffer.from(f.bytes).toString('hex'));
  } finally {
    await testHost.close();
  }
}

describe('script backend determinism', () => {
  it('produces identical frame bytes across two runs', async () => {
    const first = await journey();
    const second = await journey();
    expect(first.length).toBeGreaterThan(8);
    expect(second).toEqual(first);
    const echoed = Buffer.from(first.join(''), 'hex').toString('utf8');
    expect(echoed).toContain('echo hi\b \b\b \bok\r\nran: echo ok\r\n$ ');
  });
});
