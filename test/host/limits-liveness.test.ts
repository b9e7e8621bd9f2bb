import { afterEach, describe, expect, it } from 'vitest';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

const MEMORY_BOUND_MIB = 16; // retained after a full collection
const LIVENESS = { pingIntervalMs: 100, pongDeadlineMs: 400 };

describe('liveness proves the peer reads: the pong must echo the ping nonce', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('drops a peer that stopped reading and sends pongs of its own, keeps a healthy peer through many pings', async () => {
    rig = await startLimitsRig({}, LIVENESS);
    const abuser = await rig.abuser();
    abuser.send('Subscribe', 0, { streamId: 1, terminal: 'abuse' });
    await rig.healthy.waitFor(() => abuser.framesReceived >= 4, 'the abuser subscribed');
    abuser.stopReading();
    const stopPongs = abuser.fakePongs(20);
    try {
      await rig.healthy.waitFor(() => rig.server.stats.livenessDropped === 1, 'the host declared the abuser dead');
    } finally {
      stopPongs();
    }
    expect(rig.host.connectionCount).toBe(1);
    // The healthy peer (ws answers pings with their payload) survived the same number of pings.
    expect(await rig.echo()).toBeLessThan(5000);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
  });
});
