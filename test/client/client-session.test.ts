import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalClient } from '../../src/client/client.js';
import type { ClientStream } from '../../src/client/stream.js';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import { encodePayload } from '../../src/codec/payload.js';
import { waitFor } from '../helpers/wait-for.js';
import { clientWithFakeHost } from './harness.js';

// All tests here talk to the SIMULATED FakeHost over in-process memory links.

let client: TerminalClient | undefined;
afterEach(() => client?.close());

async function subscribed(stream: ClientStream): Promise<void> {
  await waitFor(() => stream.state === 'live' && stream.counters.snapshotsApplied >= 1, { what: `stream ${stream.id} subscribed with its initial snapshot` });
  await stream.whenIdle();
}

describe('TerminalClient against a simulated host', () => {
  it('assembles a snapshot split over many chunks into the host screen', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    h.host.chunkChars = 7; // many chunks, splitting escape sequences
    await h.host.output('t1', 'first line\r\n\x1b[1;31mred bold\x1b[0m plain\r\nthird');
    client.start();
    const stream = client.subscribe('t1');
    const snapshots: string[] = [];
    stream.on('snapshot', (s) => snapshots.push(`${s.source}@${s.seq}`));
    await subscribed(stream);
    expect(snapshots).toEqual([`subscribe@${h.host.seqOf('t1')}`]);
    expect(stream.screenLines().slice(0, 3)).toEqual(['first line', 'red bold plain', 'third']);
    expect(stream.screenText()).toBe(h.host.screenText('t1'));
  });

  it('applies live output after the snapshot and tracks the host seq', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await subscribed(stream);
    await h.host.output('t1', 'héllo ');
    await h.host.output('t1', 'wörld');
    await waitFor(() => stream.counters.outputApplied === 2, { what: 'two Output frames applied' });
    await stream.whenIdle();
    expect(stream.screenLines()[0]).toBe('héllo wörld');
    expect(stream.rx.tracker.lastSeq).toBe(h.host.seqOf('t1'));
    expect(stream.counters.gaps).toBe(0);
  });

  it('on an Output seq gap requests a snapshot and resynchronises the screen', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await subscribed(stream);
    const gaps: Array<{ requestId: string }> = [];
    stream.on('gap', (g) => gaps.push(g));
    await h.host.output('t1', 'seen ');
    await h.host.output('t1', 'MISSED ', { skipStream: stream.id }); // lost on the way to this client
    await h.host.output('t1', 'after');
    await waitFor(() => h.host.framesNamed('SnapshotRequest').length === 1, { what: 'a SnapshotRequest after the gap' });
    const request = h.host.framesNamed('SnapshotRequest')[0]!;
    expect(request.payload).toEqual({ requestId: gaps[0]!.requestId });
    await waitFor(() => stream.counters.snapshotsApplied === 2, { what: 'the resync snapshot applied' });
    await stream.whenIdle();
    expect(stream.screenLines()[0]).toBe('seen MISSED after');
    expect(stream.screenText()).toBe(h.host.screenText('t1'));
    expect(client.counters.problems.OUTPUT_GAP).toBe(1);
    // Output continues from the snapshot's seq without another gap.
    await h.host.output('t1', '!');
    await waitFor(() => stream.rx.tracker.lastSeq === h.host.seqOf('t1'), { what: 'output after the resync applied' });
    expect(stream.counters.gaps).toBe(1);
  });

  it('does not send SetOutputPaused to a host that did not echo outputPause', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    h.host.hostCapabilities = { ackOutput: 1, writeUnavailable: 1 };
    client.start();
    const stream = client.subscribe('t1');
    await subscribed(stream);
    expect(stream.advertised.outputPause).toBe(1);
    expect(stream.negotiated).toEqual({ ackOutput: 1, writeUnavailable: 1 });
    stream.hide();
    const requestId = stream.reveal();
    stream.write('marker');
    await waitFor(() => h.host.inputOf('t1') === 'marker', { what: 'the marker input after hide/reveal' });
    expect(h.host.framesNamed('SetOutputPaused')).toEqual([]);
    expect(h.host.framesNamed('SnapshotRequest').map((f) => f.payload)).toEqual([{ requestId }]);
  });

  it('pauses and resumes through SetOutputPaused when the host echoed outputPause', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await subscribed(stream);
    stream.hide();
    await h.host.output('t1', 'while hidden');
    const requestId = stream.reveal();
    await waitFor(() => stream.counters.snapshotsApplied >= 3, { what: 'the unpause and reveal snapshots' });
    await stream.whenIdle();
    expect(h.host.framesNamed('SetOutputPaused').map((f) => f.payload)).toEqual([{ paused: true }, { paused: false }]);
    expect(h.host.framesNamed('SnapshotRequest').map((f) => f.payload)).toEqual([{ requestId }]);
    expect(stream.screenLines()[0]).toBe('while hidden');
    expect(stream.counters.gaps).toBe(0);
  });

  it('counts an unknown opcode from the host and keeps working', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await subscribed(stream);
    const problems: unknown[] = [];
    client.on('problem', (p) => problems.push(p));
    await h.host.sendRaw(0, encodeFrame({ opcode: 99, streamId: stream.id, seq: 7, payload: new Uint8Array([1, 2]) }));
    await h.host.sendRaw(0, new Uint8Array([0x74, 1, 1])); // a frame shorter than the header
    await h.host.output('t1', 'still alive');
    await waitFor(() => stream.counters.outputApplied === 1, { what: 'output after the unknown frame' });
    expect(client.counters.problems.UNKNOWN_OPCODE).toBe(1);
    expect(client.counters.problems.BAD_FRAME).toBe(1);
    expect(problems[0]).toMatchObject({ code: 'UNKNOWN_OPCODE', opcode: 99, streamId: stream.id, seq: 7 });
    expect(client.connected).toBe(true);
  });

  it('acts on WriteUnavailable only on a stream that negotiated it', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const gated = client.subscribe('t1');
    await subscribed(gated);
    h.host.hostCapabilities = { ackOutput: 1 };
    const plain = client.subscribe('t2');
    await subscribed(plain);
    const seen: string[] = [];
    gated.on('writeUnavailable', () => seen.push('gated'));
    plain.on('writeUnavailable', () => seen.push('plain'));
    const writeUnavailable = (streamId: number) => encodeFrame({ opcode: Op.WriteUnavailable, streamId });
    await h.host.sendRaw(0, writeUnavailable(plain.id));
    await h.host.sendRaw(0, writeUnavailable(gated.id));
    await waitFor(() => seen.length === 1, { what: 'the gated stream told its terminal refuses writes' });
    expect(seen).toEqual(['gated']);
    expect(client.counters.problems.UNGATED_FRAME).toBe(1);
  });

  it('reports Error frames by code on their stream and on the control stream', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await subscribed(stream);
    const errors: Array<{ code: string; message: string }> = [];
    stream.on('errorFrame', (e) => errors.push(e));
    client.on('errorFrame', (e) => errors.push(e));
    const error = (streamId: number, text: string) => encodeFrame({ opcode: Op.Error, streamId, payload: encodePayload('Error', text) });
    await h.host.sendRaw(0, error(stream.id, 'WRITE_UNAVAILABLE: terminal t1 has exited'));
    await h.host.sendRaw(0, error(0, 'BAD_FRAME: SCHEMA_MISMATCH: cols: too small'));
    await waitFor(() => errors.length === 2, { what: 'two Error frames reported' });
    expect(errors).toEqual([
      { code: 'WRITE_UNAVAILABLE', message: 'terminal t1 has exited' },
      { code: 'BAD_FRAME', message: 'SCHEMA_MISMATCH: cols: too small' },
    ]);
  });

  it('multiplexes streams: each gets only its own terminal, and unsubscribe is confirmed', async () => {
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const one = client.subscribe('t1');
    const two = client.subscribe('t2');
    await subscribed(one);
    await subscribed(two);
    expect(one.id).not.toBe(two.id);
    await h.host.output('t1', 'to one');
    await h.host.output('t2', 'to two');
    await waitFor(() => one.counters.outputApplied === 1 && two.counters.outputApplied === 1, { what: 'output on both streams' });
    await Promise.all([one.whenIdle(), two.whenIdle()]);
    expect([one.screenLines()[0], two.screenLines()[0]]).toEqual(['to one', 'to two']);
    await one.unsubscribe();
    expect(one.state).toBe('closed');
    expect([...client.openStreams.keys()]).toEqual([two.id]);
    expect(h.host.streamsOf(0).map((s) => s.streamId)).toEqual([two.id]);
  });
});
