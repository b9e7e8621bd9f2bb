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
    for (let id = 1; id <= asked; id++) abuser.send('Subscribe', 0, { streamId: id, terminal: 'abuse' });
    await rig.healthy.waitFor(() => abuser.errorsWithCode('TOO_MANY_STREAMS').length === 20, '20 TOO_MANY_STREAMS errors');
    expect(abuser.errorsWithCode('TOO_MANY_STREAMS')[0]).toBe(`TOO_MANY_STREAMS: stream ${cap + 1} would be number ${cap + 1} > maxStreamsPerConnection ${cap}`);

    const burst = 'y'.repeat(1000);
    for (let i = 0; i < 100; i++) rig.backends.get('abuse')!.emit(burst);
    // Every allowed stream gets output; on a loaded machine the link may congest and coalesce the rest
    // into recovery snapshots (the link limits' business), so the barrier is the fan-out, not the byte count.
    await rig.healthy.waitFor(() => abuser.outputStreams.size >= cap, 'the burst reached every allowed stream', 30_000);
    expect(await rig.echo()).toBeLessThan(5000);
    // The fan-out is the cap, not the ask.
    expect(abuser.outputStreams.size).toBe(cap);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
    expect(abuser.isClosed).toBe(false);
  });
});
