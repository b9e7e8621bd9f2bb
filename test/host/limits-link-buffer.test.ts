import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import type { Abuser } from '../helpers/abuser.js';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

const KiB = 1024;
const MiB = 1024 * KiB;
// Unguarded, a paused reader grew the host by about 10 MiB/s, to 943 MiB (issue 9); here the whole
// flood below would sit in the host's send buffers, and the 63 subscribes' ~1 MB snapshots 63 MiB.
const OUTPUT_FLOOD_BYTES = 48 * MiB;
// What the host may rightly hold while it feeds the paused reader: that link's buffer up to
// linkSoftBufferedBytes (past it output is not sent), the abuse terminal's unparsed output up to
// screenBacklogBytes, both terminals' output history, and 4 MiB of the rig's own. About 5 MiB is retained.
const MEMORY_BOUND_MIB = (DEFAULT_HOST_OPTIONS.linkSoftBufferedBytes + DEFAULT_HOST_OPTIONS.screenBacklogBytes + 2 * DEFAULT_HOST_OPTIONS.outputHistoryBytes) / MiB + 4;
// With a 1000-column terminal (1M cells): the wide screen's own buffers and, since the host keeps its
// last serialisation, one ~1 MB snapshot text, besides the 2 MiB link. About 14 MiB is retained.
const MEMORY_BOUND_WITH_WIDE_TERMINAL_MIB = 32;

/** Subscribes, waits for the subscribe reply, then stops reading. */
async function pausedReader(rig: LimitsRig, abuser: Abuser, capabilities?: Record<string, 1>): Promise<void> {
  abuser.send('Subscribe', 0, { streamId: 1, terminal: 'abuse', ...(capabilities ? { capabilities } : {}) });
  await rig.healthy.waitFor(() => abuser.framesReceived >= 4, 'the abuser got its subscribed event and snapshot');
  abuser.stopReading();
}

/**
 * Terminal output in PTY-sized pieces, with the screen kept up and the healthy client typing; stops
 * early once the abuser is closed, so it can still read its close frame within the host's grace.
 */
async function floodOutput(rig: LimitsRig, bytes: number): Promise<number[]> {
  const piece = `${'o'.repeat(79)}\r\n`.repeat(800); // 64 000 bytes
  const echoes: number[] = [];
  const closes = () => Object.keys(rig.host.counters.limitCloses).length;
  for (let sent = 0; sent < bytes && closes() === 0; sent += piece.length) {
    rig.backends.get('abuse')!.emit(piece);
    if (sent % MiB < piece.length) {
      await rig.host.terminal('abuse')!.screen.settled();
      echoes.push(await rig.echo());
    }
  }
  return echoes;
}

describe('limit: bytes buffered per link (linkSoftBufferedBytes, linkHardBufferedBytes, linkDrainDeadlineMs)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('stops feeding a reader that stopped (a stream without ackOutput), then closes it with 1008 LINK_DRAIN_TIMEOUT; the healthy client keeps its echo', async () => {
    rig = await startLimitsRig({ linkDrainDeadlineMs: 3000 });
    const abuser = await rig.abuser();
    await pausedReader(rig, abuser);
    const echoes = await floodOutput(rig, OUTPUT_FLOOD_BYTES);
    // The loopback socket's kernel buffers take a few MiB first, and the drain deadline may end the flood early.
    expect(rig.host.counters.congestedOutputBytes).toBeGreaterThan(4 * MiB);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
    expect(Math.max(...echoes)).toBeLessThan(5000);

    await rig.healthy.waitFor(() => rig.host.counters.limitCloses.LINK_DRAIN_TIMEOUT === 1, 'the host closed the paused reader');
    abuser.resumeReading();
    await rig.healthy.waitFor(() => abuser.isClosed, 'the abuser read its close');
    expect(abuser.closeInfo?.code).toBe(1008);
    expect(abuser.closeInfo?.reason).toMatch(/^LINK_DRAIN_TIMEOUT: \d+ bytes still buffered after \d+ms > linkDrainDeadlineMs 3000$/);
    expect(await rig.echo()).toBeLessThan(5000);
  });

  it('closes a reader that stopped, while subscribes keep adding snapshots, with 1008 LINK_BUFFER_OVERFLOW', async () => {
    rig = await startLimitsRig({ linkSoftBufferedBytes: 256 * KiB, linkHardBufferedBytes: 2 * MiB });
    const abuser = await rig.abuser();
    await pausedReader(rig, abuser);
    abuser.send('Resize', 1, { cols: 1000, rows: 24 });
    await rig.healthy.waitFor(() => rig.host.terminal('abuse')!.cols === 1000, 'the abused terminal is 1000 columns wide');
    rig.backends.get('abuse')!.emit(`${'s'.repeat(999)}\r\n`.repeat(1000)); // each snapshot is now about 1 MB
    await rig.host.terminal('abuse')!.screen.settled();
    // A subscribe's snapshot is never held (the stream does not exist without it): only the hard ceiling bounds these.
    for (let id = 2; id <= 64; id++) abuser.send('Subscribe', 0, { streamId: id, terminal: 'abuse' });
    // Serialising 1 MB snapshots until the loopback socket's kernel buffers are full takes seconds on a busy machine.
    await rig.healthy.waitFor(() => rig.host.counters.limitCloses.LINK_BUFFER_OVERFLOW === 1, 'the host closed the overflowing link', 30_000);
    abuser.resumeReading();
    await rig.healthy.waitFor(() => abuser.isClosed, 'the abuser read its close');
    expect(abuser.closeInfo?.code).toBe(1008);
    expect(abuser.closeInfo?.reason).toMatch(/^LINK_BUFFER_OVERFLOW: \d+ bytes buffered > linkHardBufferedBytes 2097152$/);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_WITH_WIDE_TERMINAL_MIB);
    expect(await rig.echo()).toBeLessThan(5000);
  });

  it('holds snapshot replies and Error replies while congested, and answers once with the latest requestId when the reader drains', async () => {
    rig = await startLimitsRig({ linkSoftBufferedBytes: 64 * KiB });
    const abuser = await rig.abuser();
    await pausedReader(rig, abuser);
    await floodOutput(rig, 8 * MiB);
    await rig.healthy.waitFor(() => rig.host.connectionCount === 2 && rig.host.counters.congestedOutputBytes > 0, 'the link is congested');
    for (let i = 1; i <= 5; i++) abuser.send('SnapshotRequest', 1, { requestId: `req${i}` });
    for (let i = 0; i < 5; i++) abuser.send('Input', 77, 'x'); // each would get STREAM_NOT_OWNED
    await rig.healthy.waitFor(() => rig.host.counters.coalescedSnapshots === 4 && rig.host.counters.congestedErrorsDropped === 5, 'requests held while congested');

    const snapshotsBefore = rig.host.counters.snapshotsSent;
    abuser.resumeReading();
    await rig.healthy.waitFor(() => rig.host.counters.snapshotsSent === snapshotsBefore + 1, 'the owed snapshot went out after the drain');
    expect(abuser.isClosed).toBe(false);
    // The one reply echoes the latest request; the dropped output is covered by it.
    await rig.healthy.waitFor(() => abuser.lastSnapshotStart?.requestId !== undefined, 'the abuser read the reply');
    expect(abuser.lastSnapshotStart).toMatchObject({ requestId: 'req5', source: 'request' });
  });
});
