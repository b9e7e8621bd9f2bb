import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

// Unguarded, 5000 streams on one terminal turned 11 KB of output into 55 MB (issue 9).
const MEMORY_BOUND_MIB = 16; // retained after a full collection

describe('limit: streams per connection (maxStreamsPerConnection)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('refuses the Subscribe past the cap with TOO_MANY_STREAMS; output fans out to the cap only, and the healthy client keeps its echo', async () => {
    rig = await startLimitsRig();
    const cap = DEFAULT_HOST_OPTIONS.maxStreamsPerConnection;
    const abuser = await rig.abuser();
    const asked = cap + 20;
    const snapshotsBefore = rig.host.counters.snapshotsSent;
    for (let id = 1; id <= asked; id++) abuser.send('Subscribe', 0, { streamId: id, terminal: 'abuse' });
    await rig.healthy.waitFor(() => abuser.errorsWithCode('TOO_MANY_STREAMS').length === 20, '20 TOO_MANY_STREAMS errors');
    expect(abuser.errorsWithCode('TOO_MANY_STREAMS')[0]).toBe(`TOO_MANY_STREAMS: stream ${cap + 1} would be number ${cap + 1} > maxStreamsPerConnection ${cap}`);

    // Subscribes past maxSnapshotRequestsPerSecond wait for their snapshot, and output before it is in it: let every stream start.
    await rig.healthy.waitFor(() => rig.host.counters.snapshotsSent - snapshotsBefore >= cap, 'every allowed stream started', 30_000);
    // Small enough that the fan-out (64 copies) stays under the link's soft ceiling even when a loaded
    // machine reads slowly: past it, output would be coalesced into snapshots, which is the link limits' test.
    const burst = 'y'.repeat(100);
    for (let i = 0; i < 10; i++) rig.backends.get('abuse')!.emit(burst);
    await rig.healthy.waitFor(() => abuser.outputStreams.size >= cap, 'the burst reached every allowed stream', 30_000);
    expect(await rig.echo()).toBeLessThan(5000);
    // The fan-out is the cap, not the ask.
    expect(abuser.outputStreams.size).toBe(cap);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
    expect(abuser.isClosed).toBe(false);
  });
});
