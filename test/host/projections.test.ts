import { afterEach, describe, expect, it } from 'vitest';
import { type AnyProjection, projection, ProjectionRegistry } from '../../src/capabilities/projections.js';
import { Op } from '../../src/codec/opcodes.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, subscribe, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

// Projections on the host's send paths, over a real WebSocket: the stream's
// negotiated capabilities choose them; a withheld or failed frame is counted and
// the stream carries on.

let testHost: TestHost;
afterEach(async () => {
  expect(testHost.host.counters.internalErrors).toBe(0);
  await testHost.close();
});

async function hostWith(table: readonly AnyProjection[]) {
  const logged: string[] = [];
  testHost = await startTestHost({ terminals: scriptTerminals('a'), projections: new ProjectionRegistry(table, { log: (line) => logged.push(line) }) });
  return { logged, peer: await testHost.connect(), counters: testHost.host.counters };
}

const resizedTo = (peer: RawPeer, streamId: number) => peer.on(streamId, Op.Resized).map((f) => peer.json(f).cols);

describe('projections on the host send paths', () => {
  it('worked example: a stream with snapshotCause gets cause, one without gets the old source in the old key order', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { outputPause: 1, snapshotCause: 1 });
    await subscribe(peer, 2, { outputPause: 1 });
    for (const s of [1, 2]) peer.send('SetOutputPaused', s, { paused: true });
    for (const s of [1, 2]) peer.send('SetOutputPaused', s, { paused: false });
    await peer.waitFor(() => peer.snapshots(1).length === 2 && peer.snapshots(2).length === 2, 'a snapshot on each stream when it resumes');

    expect(peer.snapshots(1).map((s) => [s.start.cause, s.start.source])).toEqual([['subscribe', undefined], ['resume', undefined]]);
    expect(peer.snapshots(2).map((s) => [s.start.cause, s.start.source])).toEqual([[undefined, 'subscribe'], [undefined, 'recovery']]);
    expect(Object.keys(peer.snapshots(2)[1]!.start)).toEqual(['kind', 'cols', 'rows', 'seq', 'source', 'truncated']);
    expect(testHost.host.counters).toMatchObject({ projectionsWithheld: 0, projectionErrors: 0 });
  });

  it('worked example: an overflowing queue is cause overflow for a stream with snapshotCause, source recovery for one without', async () => {
    const KiB = 1024;
    testHost = await startTestHost({ terminals: scriptTerminals('a'), limits: { outputFrameBytes: 4 * KiB, streamWindowInitialBytes: 8 * KiB, streamQueueMaxBytes: 32 * KiB } });
    const peer = await testHost.connect();
    await subscribe(peer, 1, { ackOutput: 1, snapshotCause: 1 });
    await subscribe(peer, 2, { ackOutput: 1 });
    // A viewer that keeps up (no ackOutput): with it the program is not held, and the two slow streams overflow.
    await subscribe(await testHost.connect(), 1, {});
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    for (let i = 0; i < 200; i++) a.emit(`line ${i} ${'y'.repeat(200)}\r\n`);
    await peer.waitFor(() => peer.snapshots(1).length > 1 && peer.snapshots(2).length > 1, 'a snapshot replacing each overflowing queue');
    expect(peer.snapshots(1)[1]!.start).toMatchObject({ cause: 'overflow' });
    expect(peer.snapshots(2)[1]!.start).toMatchObject({ source: 'recovery' });
    expect(peer.snapshots(2)[1]!.start).not.toHaveProperty('cause');
  });

  it('withholds a frame from a stream without the capability, counts it, and keeps the stream going', async () => {
    const { peer, counters } = await hostWith([
      projection({ name: 'no-resized', opcode: 'Resized', capability: 'writeUnavailable', purpose: 'withholds Resized', project: () => null }),
    ]);
    await subscribe(peer, 1, { writeUnavailable: 1 });
    await subscribe(peer, 2, {});
    peer.send('Resize', 1, { cols: 100, rows: 30 });
    await peer.waitFor(() => resizedTo(peer, 1).length === 1 && counters.projectionsWithheld === 1, 'Resized on stream 1, withheld from stream 2');
    (testHost.host.terminal('a')!.backend as ScriptBackend).emit('after-resize');
    await peer.waitFor(() => peer.outputText(2).includes('after-resize'), 'stream 2 output after the withheld frame');
    expect(resizedTo(peer, 2)).toEqual([]);
    expect(counters.projectionErrors).toBe(0);
  });

  it('does not send a frame whose projection throws: counted, logged, and the stream keeps working', async () => {
    const { peer, counters, logged } = await hostWith([
      projection({
        name: 'fragile',
        opcode: 'Resized',
        capability: 'writeUnavailable',
        purpose: 'throws on 99 columns',
        project: (r) => {
          if (r.cols === 99) throw new Error('99 columns');
          return r;
        },
      }),
    ]);
    await subscribe(peer, 1, {});
    peer.send('Resize', 1, { cols: 99, rows: 30 });
    await peer.waitFor(() => counters.projectionErrors === 1, 'the failed projection counted');
    expect(logged).toEqual([expect.stringMatching(/^PROJECTION_FAILED: projection 'fragile' on Resized \(stream 1, seq \d+\) threw; frame not sent: 99 columns$/)]);
    peer.send('Resize', 1, { cols: 100, rows: 30 });
    (testHost.host.terminal('a')!.backend as ScriptBackend).emit('still-here');
    await peer.waitFor(() => resizedTo(peer, 1).length === 1 && peer.outputText(1).includes('still-here'), 'the next Resized and output on the same stream');
    expect(resizedTo(peer, 1)).toEqual([100]);
    expect(peer.errors(1)).toEqual([]);
  });

  it('projects the text paths held as bytes too: Output and SnapshotChunk', async () => {
    const upper = (opcode: 'Output' | 'SnapshotChunk') =>
      projection({ name: `upper-${opcode}`, opcode, capability: 'writeUnavailable', purpose: 'upper-cases text', project: (text: string) => text.toUpperCase() });
    const { peer } = await hostWith([upper('Output'), upper('SnapshotChunk')]);
    await subscribe(peer, 1, { writeUnavailable: 1, ackOutput: 1 });
    await subscribe(peer, 2, { ackOutput: 1 });
    (testHost.host.terminal('a')!.backend as ScriptBackend).emit('live text');
    await peer.waitFor(() => peer.outputText(1).includes('live text') && peer.outputText(2).includes('LIVE TEXT'), 'output on both streams');
    expect(peer.snapshots(1)[0]!.text).toContain('script terminal');
    expect(peer.snapshots(2)[0]!.text).toContain('SCRIPT TERMINAL');
    expect(peer.outputText(2)).not.toContain('live text');
  });

  it('projects Error frames by the stream they are on, and on stream 0 as for a peer that negotiated nothing', async () => {
    const { peer } = await hostWith([
      projection({ name: 'terse-errors', opcode: 'Error', capability: 'writeUnavailable', purpose: 'keeps only the code', project: (text) => text.split(':')[0]! }),
    ]);
    await subscribe(peer, 1, { writeUnavailable: 1 });
    await subscribe(peer, 2, {});
    peer.send('SetOutputPaused', 1, { paused: true }); // not negotiated: UNGATED_FRAME on stream 1
    peer.send('SetOutputPaused', 2, { paused: true });
    peer.subscribe(1, 'a'); // STREAM_IN_USE, reported on stream 0
    await peer.waitFor(() => peer.errors(1).length === 1 && peer.errors(2).length === 1 && peer.errors(0).length === 1, 'an Error on streams 1, 2 and 0');
    expect(peer.errors(1)[0]).toMatch(/^UNGATED_FRAME: SetOutputPaused/);
    expect(peer.errors(2)).toEqual(['UNGATED_FRAME']);
    expect(peer.errors(0)).toEqual(['STREAM_IN_USE']);
  });
});
