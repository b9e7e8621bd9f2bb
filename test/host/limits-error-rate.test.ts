import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

// Unguarded, 2.7 million bad frames got 2.7 million Error replies and +450 MiB (issue 9).
const MEMORY_BOUND_MIB = 16; // retained after a full collection
const FLOOD_FRAMES = 50_000;

describe('limit: Error replies per second (maxErrorRepliesPerSecond)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('closes a connection flooding bad frames with 1008 ERROR_RATE after about one second of replies; the healthy client keeps its echo', async () => {
    rig = await startLimitsRig();
    const rate = DEFAULT_HOST_OPTIONS.maxErrorRepliesPerSecond;
    const abuser = await rig.abuser();
    const garbage = new Uint8Array([0x74, 1, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // unknown opcode 200
    for (let i = 0; i < FLOOD_FRAMES; i++) abuser.sendRaw(garbage);
    await rig.healthy.waitFor(() => abuser.isClosed, 'the flooder closed');
    expect(abuser.closeInfo).toEqual({ code: 1008, reason: `ERROR_RATE: more than ${rate} Error replies in a second > maxErrorRepliesPerSecond ${rate}` });
    // The bucket holds one second's worth, and a few may refill while the flood is read.
    expect(abuser.errorCount).toBeGreaterThanOrEqual(rate);
    expect(abuser.errorCount).toBeLessThan(rate * 2);
    expect(rig.host.counters.limitCloses.ERROR_RATE).toBe(1);
    expect(await rig.echo()).toBeLessThan(5000);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
  });

  it('leaves a peer that makes a few mistakes connected', async () => {
    rig = await startLimitsRig();
    const abuser = await rig.abuser();
    for (let i = 0; i < 10; i++) abuser.send('Input', 99, 'x');
    await rig.healthy.waitFor(() => abuser.errorCount === 10, 'ten STREAM_NOT_OWNED errors');
    expect(abuser.isClosed).toBe(false);
  });
});

describe('limit: answers to Subscribes of an exited instance (maxErrorRepliesPerSecond, rememberedExits)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('paces the exit answers as Error replies: a flood of them closes its connection with ERROR_RATE, and starts no terminal', async () => {
    rig = await startLimitsRig();
    const rate = DEFAULT_HOST_OPTIONS.maxErrorRepliesPerSecond;
    const viewer = await rig.connect();
    viewer.subscribe(1, 'gone', { capabilities: { outputResume: 1 } });
    await viewer.waitFor(() => viewer.snapshots(1).length === 1, 'subscribed to the terminal that will exit');
    const instanceId = viewer.on(1, Op.Metadata).map((f) => viewer.json(f)).find((m) => m.type === 'subscribed')!.instanceId as string;
    rig.backends.get('gone')!.kill();
    await viewer.waitFor(() => !rig.host.hasTerminal('gone'), 'the terminal gone');
    const abuser = await rig.abuser();
    for (let id = 1; id <= rate * 3; id++) abuser.send('Subscribe', 0, { streamId: id, terminal: 'gone', capabilities: { outputResume: 1 }, resumeFrom: 0, resumeInstanceId: instanceId });
    await rig.healthy.waitFor(() => abuser.isClosed, 'the flooder closed');
    expect(abuser.closeInfo?.reason).toMatch(/^ERROR_RATE: more than 100 replies to Subscribes of exited terminals in a second/);
    expect(rig.host.counters.exitsAnswered).toBeGreaterThanOrEqual(rate);
    expect(rig.host.counters.exitsAnswered).toBeLessThan(rate * 2);
    expect(rig.host.hasTerminal('gone')).toBe(false);
  });
});
