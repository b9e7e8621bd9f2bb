import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import { replaySnapshot } from '../../src/host/screen.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, subscribe, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

const KiB = 1024;
let testHost: TestHost;
afterEach(async () => {
  expect(testHost.host.counters.internalErrors).toBe(0);
  await testHost.close();
});

/** Output frames after the latest snapshot must continue its seq without a gap. */
function expectContinuousAfterLastSnapshot(peer: RawPeer, streamId: number): void {
  const frames = peer.on(streamId);
  const lastEnd = frames.map((f) => f.opcode).lastIndexOf(Op.SnapshotEnd);
  let seq = frames[lastEnd]!.seq;
  for (const f of frames.slice(lastEnd + 1).filter((f) => f.opcode === Op.Output)) {
    expect(f.seq - f.payload.length).toBe(seq);
    seq = f.seq;
  }
}

describe('output flow control', () => {
  it('stops at the stream window without Acks and resumes on Ack; a stream without ackOutput is not held', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 16 * KiB } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    await subscribe(peer, 2, {});
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    const total = 2048 * KiB;
    a.emit('x'.repeat(total));
    const terminal = testHost.host.terminal('a')!;
    await peer.waitFor(() => peer.outputBytes(2) === total, 'all output on stream 2, which did not negotiate ackOutput');
    await peer.waitFor(() => peer.outputBytes(1) === 512 * KiB, 'stream 1 to fill its 512 KiB window');
    expect(terminal.seq).toBe(total + peer.snapshots(1)[0]!.seq);
    expect(peer.outputBytes(1)).toBe(512 * KiB); // all 2 MiB were produced, yet no more went out

    // An Ack to a sender that was held back doubles its window: 256 KiB in flight, window 1 MiB.
    peer.send('Ack', 1, { bytes: 256 * KiB });
    await peer.waitFor(() => peer.outputBytes(1) === 1280 * KiB, 'output up to the grown 1 MiB window');
    peer.send('Ack', 1, { bytes: 1280 * KiB });
    await peer.waitFor(() => peer.outputBytes(1) === total, 'the rest after the second Ack');
    expectContinuousAfterLastSnapshot(peer, 1);
    expect(testHost.host.counters.recoverySnapshots).toBe(0);
  });

  it('holds output at the connection window shared by its ackOutput streams', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 16 * KiB, connectionWindowInitialBytes: 768 * KiB } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    await subscribe(peer, 2, { ackOutput: 1 });
    const marker = await testHost.connect();
    await subscribe(marker, 9, {});
    (testHost.host.terminal('a')!.backend as ScriptBackend).emit('z'.repeat(2048 * KiB));
    await marker.waitFor(() => marker.outputBytes(9) === 2048 * KiB, 'all output on the other connection');
    await peer.waitFor(() => peer.outputBytes(1) + peer.outputBytes(2) === 768 * KiB, 'both streams together to fill 768 KiB');
    expect(peer.outputBytes(1)).toBeLessThan(512 * KiB); // each stream's own window was not the limit
    peer.send('Ack', 1, { bytes: peer.outputBytes(1) });
    await peer.waitFor(() => peer.outputBytes(1) + peer.outputBytes(2) > 768 * KiB, 'more output once the connection got credit');
  });

  it('holds the program rather than skip its output when its only subscriber is behind: every byte arrives, in order, once credit comes', async () => {
    testHost = await startTestHost({
      terminals: scriptTerminals('a'),
      limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB, streamQueueMaxBytes: 32 * KiB },
    });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    const terminal = testHost.host.terminal('a')!;
    const a = terminal.backend as ScriptBackend;
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i} ${'y'.repeat(200)}\r\n`);
    for (const line of lines) a.emit(line);
    await peer.waitFor(() => a.isPaused, 'the terminal no longer read while its only subscriber is behind');
    // The reader catches up: each Ack gives back what it read.
    let acked = 0;
    while (!peer.outputText(1).includes('line 199 ')) {
      const read = peer.outputBytes(1);
      if (read > acked) peer.send('Ack', 1, { bytes: read - acked });
      acked = read;
      await peer.waitFor(() => peer.outputBytes(1) > read || peer.outputText(1).includes('line 199 '), 'more output for the credit given');
    }
    expect(peer.snapshots(1).map((s) => s.start.source)).toEqual(['subscribe']);
    expect(testHost.host.counters.droppedOutputBytes).toBe(0);
    expect(peer.outputText(1)).toBe(lines.join(''));
    expectContinuousAfterLastSnapshot(peer, 1);
  });

  it('holds the program once its only subscriber has subscriberHoldBytes queued past its window, not half the queue limit: what a key waits behind stays small', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB, subscriberHoldBytes: 64 * KiB } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    const text = 'w'.repeat(256 * KiB); // far under half of streamQueueMaxBytes (4 MiB)
    a.emit(text);
    await peer.waitFor(() => a.isPaused, 'the terminal no longer read: 248 KiB queued > subscriberHoldBytes');
    peer.send('Ack', 1, { bytes: 8 * KiB });
    await peer.waitFor(() => peer.outputBytes(1) > 8 * KiB, 'the next window');
    expect(a.isPaused).toBe(true); // over 200 KiB still queued
    let acked = 8 * KiB;
    while (peer.outputBytes(1) < text.length) {
      const read = peer.outputBytes(1);
      peer.send('Ack', 1, { bytes: read - acked });
      acked = read;
      await peer.waitFor(() => peer.outputBytes(1) > read, 'more output for the credit given');
    }
    expect(a.isPaused).toBe(false); // read again once the queue was down to half of subscriberHoldBytes
    expect(peer.outputText(1)).toBe(text);
  });

  it("sends a terminal's exit after the output queued before it, not ahead of it: the last output is not lost to a client that stops at the exit", async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    a.emit('q'.repeat(20 * KiB));
    a.kill();
    await peer.waitFor(() => peer.outputBytes(1) === 8 * KiB, 'the window filled');
    peer.send('Ack', 1, { bytes: 64 * KiB });
    await peer.waitFor(() => peer.on(1, Op.Metadata).some((f) => peer.text(f).includes('"exit"')), 'the exit event');
    const frames = peer.on(1).filter((f) => f.opcode === Op.Output || f.opcode === Op.Metadata);
    const exitAt = frames.findIndex((f) => f.opcode === Op.Metadata && peer.text(f).includes('"exit"'));
    expect(frames.slice(exitAt + 1).filter((f) => f.opcode === Op.Output)).toEqual([]);
    expect(peer.outputBytes(1)).toBe(20 * KiB);
  });

  it('holds the program at most maxSubscriberHoldMs for a subscriber that stopped reading: then its queue overflows into a recovery snapshot', async () => {
    testHost = await startTestHost({
      terminals: scriptTerminals('a'),
      limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB, streamQueueMaxBytes: 32 * KiB, maxSubscriberHoldMs: 200 },
    });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 }); // and never acks
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    for (let i = 0; i < 200; i++) a.emit(`line ${i} ${'y'.repeat(200)}\r\n`);
    await peer.waitFor(() => a.isPaused, 'the program held');
    await peer.waitFor(() => peer.snapshots(1).some((s) => s.start.source === 'recovery'), 'a recovery snapshot once the hold expired');
    expect(a.isPaused).toBe(false);
  });

  it('keeps an exit that came while a snapshot was being taken behind the output queued after that snapshot', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    const terminal = testHost.host.terminal('a')!;
    const a = terminal.backend as ScriptBackend;
    // The snapshot's answer is held until the test lets it go: output and the exit arrive while it is pending.
    const screen = terminal.screen;
    const snapshot = screen.snapshot.bind(screen);
    let answer: (() => void) | undefined;
    screen.snapshot = ((callback: (...args: never[]) => void) => snapshot(((...args: never[]) => (answer = () => callback(...args))) as never)) as typeof screen.snapshot;
    a.emit('a'.repeat(8 * KiB)); // fills the window
    await peer.waitFor(() => peer.outputBytes(1) === 8 * KiB, 'the window filled');
    peer.send('SnapshotRequest', 1, { requestId: 'held' });
    await peer.waitFor(() => answer !== undefined, 'the snapshot taken, its answer held');
    a.emit('b'.repeat(12 * KiB)); // after the snapshot: held, then queued for credit
    a.kill();
    answer!();
    peer.send('Ack', 1, { bytes: 64 * KiB });
    await peer.waitFor(() => peer.on(1, Op.Metadata).some((f) => peer.text(f).includes('"exit"')), 'the exit event');
    const frames = peer.on(1).filter((f) => f.opcode === Op.Output || f.opcode === Op.Metadata);
    const exitAt = frames.findIndex((f) => f.opcode === Op.Metadata && peer.text(f).includes('"exit"'));
    expect(frames.slice(exitAt + 1).filter((f) => f.opcode === Op.Output).length).toBe(0);
    expect(peer.outputText(1).endsWith('b'.repeat(12 * KiB))).toBe(true);
  });

  it('replaces an overflowing queue with a recovery snapshot that matches the screen, then continues from its seq, when another subscriber keeps up', async () => {
    testHost = await startTestHost({
      terminals: scriptTerminals('a'),
      limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB, streamQueueMaxBytes: 32 * KiB },
    });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    // A viewer without ackOutput on another connection: it never holds the program, so the slow stream 1 falls behind alone.
    const keepingUp = await testHost.connect();
    await subscribe(keepingUp, 1, {});
    const terminal = testHost.host.terminal('a')!;
    const a = terminal.backend as ScriptBackend;
    for (let i = 0; i < 200; i++) a.emit(`line ${i} ${'y'.repeat(200)}\r\n`);
    await peer.waitFor(() => peer.snapshots(1).some((s) => s.start.source === 'recovery'), 'a recovery snapshot');
    expect(testHost.host.counters.recoverySnapshots).toBeGreaterThanOrEqual(1);
    expect(testHost.host.counters.droppedOutputBytes).toBeGreaterThan(32 * KiB);

    // Give credit back, then produce a little more: it continues from the recovery snapshot's seq.
    peer.send('Ack', 1, { bytes: 1024 * KiB });
    a.emit('after recovery\r\n');
    await peer.waitFor(() => peer.outputText(1).includes('after recovery'), 'output after the recovery');
    expectContinuousAfterLastSnapshot(peer, 1);
    const recovery = peer.snapshots(1).filter((s) => s.start.source === 'recovery').at(-1)!;
    expect(recovery.start.seq).toBe(recovery.seq);
    expect(await replaySnapshot(recovery.text + outputAfter(peer, 1, recovery.seq), 80, 24)).toBe(await terminal.screen.text());
  });

  it('chunks a large snapshot at most 48 KiB per chunk, never inside a code point', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { scrollbackLines: 5000 } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, {});
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    for (let i = 0; i < 3000; i++) a.emit(`€ ${i} ${'é'.repeat(30)}\r\n`);
    peer.send('SnapshotRequest', 1, { requestId: 'big' });
    await peer.waitFor(() => peer.snapshots(1).length === 2, 'the big snapshot');
    const big = peer.snapshots(1)[1]!;
    expect(big.chunkSizes.length).toBeGreaterThan(2);
    for (const size of big.chunkSizes) expect(size).toBeLessThanOrEqual(48 * KiB);
    expect(big.text).toContain(`€ 2999 ${'é'.repeat(30)}`); // every chunk decoded strictly by the raw peer's codec path
  });
});

function outputAfter(peer: RawPeer, streamId: number, seq: number): string {
  return peer.on(streamId, Op.Output).filter((f) => f.seq > seq).map((f) => peer.text(f)).join('');
}
