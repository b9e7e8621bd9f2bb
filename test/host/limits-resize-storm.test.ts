import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

// 72k ClaimViewport in 15 s once gave the other viewer 71,914 Resized frames and held every screen behind the storm (issue 20).
const STORM_FRAMES = 5_000;

describe('limit: resizes per terminal (minResizeIntervalMs)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('coalesces a ClaimViewport storm on a shared terminal: the viewer gets a Resized per interval, the last size wins, and a Subscribe elsewhere is answered', async () => {
    rig = await startLimitsRig();
    const stormer = await rig.abuser();
    stormer.send('Subscribe', 0, { streamId: 1, terminal: 'shared' });
    await rig.healthy.waitFor(() => rig.backends.has('shared'), 'the shared terminal opened');
    const viewer = await rig.connect();
    viewer.subscribe(1, 'shared');
    await viewer.waitFor(() => viewer.snapshots(1).length === 1, 'the viewer subscribed');
    const started = performance.now();
    for (let i = 0; i < STORM_FRAMES; i++) stormer.send('ClaimViewport', 1, i % 2 ? { cols: 1000, rows: 100 } : { cols: 80, rows: 24 });
    stormer.send('ClaimViewport', 1, { cols: 120, rows: 40 });
    // A Subscribe to another terminal during the storm is answered.
    rig.healthy.subscribe(2, 'elsewhere');
    await rig.healthy.waitFor(() => rig.healthy.snapshots(2).length === 1, 'a Subscribe answered during the storm');
    const last = () => viewer.on(1, Op.Resized).at(-1);
    await viewer.waitFor(() => last() !== undefined && viewer.json(last()!).cols === 120, 'the last size asked for, applied');
    const elapsedMs = performance.now() - started;
    const resized = viewer.on(1, Op.Resized).length;
    // One per interval over the storm, and the leading and trailing ones.
    expect(resized).toBeLessThanOrEqual(Math.ceil(elapsedMs / DEFAULT_HOST_OPTIONS.minResizeIntervalMs) + 2);
    expect(viewer.json(last()!)).toMatchObject({ cols: 120, rows: 40 });
    expect(rig.host.terminal('shared')!.cols).toBe(120);
    expect(await rig.echo()).toBeLessThan(5000);
  });
});
