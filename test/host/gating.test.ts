import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import { serializeScreen, type SnapshotForm } from '../../src/screen/serialize-screen.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

let testHost: TestHost;
afterEach(async () => {
  expect(testHost.host.counters.internalErrors).toBe(0);
  await testHost.close();
});

async function subscribe(peer: RawPeer, streamId: number, capabilities?: Record<string, number>): Promise<void> {
  peer.subscribe(streamId, 'a', capabilities ? { capabilities } : {});
  await peer.waitFor(() => peer.snapshots(streamId).length === 1, `initial snapshot on ${streamId}`);
}

describe('capability-gated frames, both directions', () => {

  it('serialises the snapshots of a stream that negotiated snapshotRepaint in the repaint form, and the others in the form released clients draw', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    const hosted = testHost.host.terminal('a')!;
    // A screen cleared blue, a row written to the last column and the cursor moved up from it: the blank blue rows
    // below it and where the cursor is are what the released form leaves out.
    const output = `\x1b[44m\x1b[2J\x1b[Htop\x1b[0m\x1b[10;1H${'b'.repeat(hosted.cols)}\x1b[3A`;
    (hosted.backend as ScriptBackend).emit(output);
    await peer.waitFor(() => peer.outputText(1).endsWith('\x1b[3A'), 'the output on stream 1');
    // Both asked at once, so one serialisation cannot answer both: each stream gets its own form.
    peer.subscribe(2, 'a', { capabilities: { ackOutput: 1, snapshotRepaint: 1 } });
    peer.subscribe(3, 'a', { capabilities: { ackOutput: 1 } });
    await peer.waitFor(() => peer.snapshots(2).length === 1 && peer.snapshots(3).length === 1, 'the snapshots of streams 2 and 3');

    const local = screenTerminals.take(hosted.cols, hosted.rows, DEFAULT_HOST_OPTIONS.scrollbackLines);
    await new Promise<void>((resolve) => local.term.write(`termwire script terminal a\r\n$ ${output}`, resolve));
    const inForm = (form: SnapshotForm) => serializeScreen(local, form);
    const [repaint, wire] = [inForm('repaint'), inForm('wire')];
    screenTerminals.give(local);
    expect(repaint).not.toBe(wire);
    expect(peer.snapshots(2)[0]!.text).toBe(repaint);
    expect(peer.snapshots(3)[0]!.text).toBe(wire);
  });
  it('ignores SetOutputPaused from a stream that did not negotiate outputPause, and honours it from one that did', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1 });
    await subscribe(peer, 2, { outputPause: 1 });
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    peer.send('SetOutputPaused', 1, { paused: true });
    peer.send('SetOutputPaused', 2, { paused: true });
    await peer.waitFor(() => peer.errors(1).length === 1, 'UNGATED_FRAME on stream 1');
    expect(peer.errors(1)[0]).toMatch(/^UNGATED_FRAME: SetOutputPaused \(16\) needs capability 'outputPause'/);
    expect(testHost.host.counters.ungatedFrames).toBe(1);
    a.emit('while-paused');
    await peer.waitFor(() => peer.outputText(1).includes('while-paused'), 'stream 1 still gets output');
    expect(peer.outputText(2)).not.toContain('while-paused');

    peer.send('SetOutputPaused', 2, { paused: false });
    await peer.waitFor(() => peer.snapshots(2).length === 2, 'a snapshot when stream 2 resumes');
    expect(peer.snapshots(2)[1]!.start.source).toBe('recovery');
    expect(peer.snapshots(2)[1]!.text).toContain('while-paused');
    a.emit('after-resume');
    await peer.waitFor(() => peer.outputText(2).includes('after-resume'), 'stream 2 output after resume');
    expect(peer.errors(2)).toEqual([]);
  });

  it('sends WriteUnavailable only to a stream that negotiated it; others get Error WRITE_UNAVAILABLE', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { writeUnavailable: 1 });
    await subscribe(peer, 2, { ackOutput: 1 });
    await subscribe(peer, 3);
    const backend = testHost.host.terminal('a')!.backend as ScriptBackend; // removed from the runtime once it exits
    peer.send('Input', 1, 'exit\r');
    await peer.waitFor(() => [1, 2, 3].every((s) => peer.on(s, Op.Metadata).some((f) => peer.json(f).type === 'exit')), 'exit event on every stream');
    expect(peer.on(1, Op.Metadata).map((f) => peer.json(f)).find((e) => e.type === 'exit')).toEqual({ type: 'exit', exitCode: 0, signal: null });
    for (const s of [1, 2, 3]) peer.send('Input', s, 'more\r');
    await peer.waitFor(() => peer.on(1, Op.WriteUnavailable).length === 1, 'WriteUnavailable on stream 1');
    await peer.waitFor(() => peer.errors(2).length === 1 && peer.errors(3).length === 1, 'Error on streams 2 and 3');
    for (const s of [2, 3]) {
      expect(peer.errors(s)[0]).toBe("WRITE_UNAVAILABLE: terminal 'a' refuses writes (it exited)");
      expect(peer.on(s, Op.WriteUnavailable)).toEqual([]);
    }
    expect(peer.errors(1)).toEqual([]);
    expect(backend.inputLog()).toBe('exit\r');
  });

  it('answers sequenced input to an exited terminal with a resend request and WriteUnavailable, so the client learns why', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    peer.subscribe(1, 'a', { capabilities: { writeUnavailable: 1, inputAck: 1 }, inputSessionId: 'session-1' });
    await peer.waitFor(() => peer.snapshots(1).length === 1, 'initial snapshot on 1');
    peer.send('Input', 1, 'exit\r', 1);
    await peer.waitFor(() => peer.on(1, Op.Metadata).some((f) => peer.json(f).type === 'exit'), 'the exit event');
    peer.send('Input', 1, 'more\r', 2);
    await peer.waitFor(() => peer.on(1, Op.WriteUnavailable).length === 1, 'WriteUnavailable for the sequenced write');
    const acks = peer.on(1, Op.InputAck).map((f) => [f.seq, [...f.payload]]);
    expect(acks).toEqual([[1, []], [1, [2]]]);
  });
});
