import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import { replaySnapshot } from '../../src/host/screen.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

let testHost: TestHost;
afterEach(async () => {
  expect(testHost.host.counters.internalErrors).toBe(0);
  await testHost.close();
});

/** What a client would show: the last snapshot, then the Output frames that came after it on the wire. */
function clientView(peer: RawPeer, streamId: number): { text: string; seq: number } {
  const frames = peer.on(streamId);
  const end = frames.map((f) => f.opcode).lastIndexOf(Op.SnapshotEnd);
  const snapshot = peer.snapshots(streamId).at(-1)!;
  let seq = snapshot.seq;
  let text = snapshot.text;
  for (const f of frames.slice(end + 1).filter((f) => f.opcode === Op.Output)) {
    expect(f.seq - f.payload.length, 'Output after a snapshot continues its seq').toBe(seq);
    seq = f.seq;
    text += peer.text(f);
  }
  return { text, seq };
}

describe('snapshots stay consistent with the output around them', () => {
  it('holds output produced while a snapshot is taken and sends it after, continuing the snapshot seq', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    peer.subscribe(1, 'a');
    // Input right behind the Subscribe: its echo is produced while the initial snapshot is pending.
    peer.send('Input', 1, 'first\r');
    await peer.waitFor(() => peer.outputText(1).includes('ran: first') || (peer.snapshots(1)[0]?.text.includes('ran: first') ?? false), 'first line');
    for (let round = 0; round < 5; round++) {
      peer.send('SnapshotRequest', 1, { requestId: `r${round}` });
      peer.send('Input', 1, `line${round}\r`);
      await peer.waitFor(() => peer.snapshots(1).length === round + 2, `snapshot r${round}`);
      await peer.waitFor(() => clientView(peer, 1).seq === testHost.host.terminal('a')!.seq, `output after snapshot r${round}`);
      const terminal = testHost.host.terminal('a')!;
      await terminal.screen.settled();
      expect(await replaySnapshot(clientView(peer, 1).text, 80, 24)).toBe(await terminal.screen.text());
    }
    expect(await testHost.host.terminal('a')!.screen.text()).toContain('ran: line4');
  });

  it('drops held output a later snapshot covers when two snapshots are pending at once', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    peer.subscribe(1, 'a');
    await peer.waitFor(() => peer.snapshots(1).length === 1, 'initial snapshot');
    for (let round = 0; round < 5; round++) {
      // Both requests and both inputs arrive before the screen barrier runs.
      peer.send('SnapshotRequest', 1, { requestId: `a${round}` });
      peer.send('Input', 1, `x${round}\r`);
      peer.send('SnapshotRequest', 1, { requestId: `b${round}` });
      peer.send('Input', 1, `y${round}\r`);
      await peer.waitFor(() => peer.snapshots(1).length === 1 + 2 * (round + 1), `snapshots a${round} and b${round}`);
      await peer.waitFor(() => clientView(peer, 1).seq === testHost.host.terminal('a')!.seq, `output after b${round}`);
    }
    const terminal = testHost.host.terminal('a')!;
    await terminal.screen.settled();
    expect(await replaySnapshot(clientView(peer, 1).text, 80, 24)).toBe(await terminal.screen.text());
  });

  it('drops queued output that a requested snapshot covers, so output after it does not rewind', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 1024, streamWindowInitialBytes: 4096 } });
    const peer = await testHost.connect();
    peer.subscribe(1, 'a', { capabilities: { ackOutput: 1 } });
    await peer.waitFor(() => peer.snapshots(1).length === 1, 'initial snapshot');
    const terminal = testHost.host.terminal('a')!;
    (terminal.backend as ScriptBackend).emit('q'.repeat(20_000) + '\r\n');
    await peer.waitFor(() => peer.outputBytes(1) === 4096, 'the window to fill, the rest queued');
    peer.send('SnapshotRequest', 1, { requestId: 'over-queue' });
    await peer.waitFor(() => peer.snapshots(1).length === 2, 'the requested snapshot');
    peer.send('Ack', 1, { bytes: 4096 });
    (terminal.backend as ScriptBackend).emit('tail\r\n');
    await peer.waitFor(() => clientView(peer, 1).seq === terminal.seq, 'output after the snapshot');
    await terminal.screen.settled();
    expect(await replaySnapshot(clientView(peer, 1).text, 80, 24)).toBe(await terminal.screen.text());
  });
});
