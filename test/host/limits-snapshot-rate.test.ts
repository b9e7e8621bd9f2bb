import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

// Unguarded, 18-byte SnapshotRequests answered with 80 KB each grew the host until the client left (issue 9).
const MEMORY_BOUND_MIB = 16; // retained after a full collection
const FLOOD_FRAMES = 20_000;

describe('limit: snapshot requests per second (maxSnapshotRequestsPerSecond)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('closes a SnapshotRequest flooder with 1008 SNAPSHOT_RATE; the healthy client keeps its echo', async () => {
    rig = await startLimitsRig();
    const rate = DEFAULT_HOST_OPTIONS.maxSnapshotRequestsPerSecond;
    const abuser = await rig.abuser();
    abuser.send('Subscribe', 0, { streamId: 1, terminal: 'abuse' });
    await rig.healthy.waitFor(() => rig.backends.has('abuse'), 'the abused terminal opened');
    // A full scrollback makes each snapshot worth tens of KB.
    rig.backends.get('abuse')!.emit(`${'z'.repeat(79)}\r\n`.repeat(1000));
    for (let i = 0; i < FLOOD_FRAMES; i++) abuser.send('SnapshotRequest', 1, { requestId: `r${i}` });
    await rig.healthy.waitFor(() => abuser.isClosed, 'the flooder closed');
    expect(abuser.closeInfo).toEqual({ code: 1008, reason: `SNAPSHOT_RATE: more than ${rate} snapshot requests in a second > maxSnapshotRequestsPerSecond ${rate}` });
    expect(rig.host.counters.snapshotsSent).toBeLessThan(rate * 2 + 2);
    expect(await rig.echo()).toBeLessThan(5000);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
  });

  it('counts a SetOutputPaused resume, which answers with a snapshot, against the same rate', async () => {
    rig = await startLimitsRig();
    const abuser = await rig.abuser();
    abuser.send('Subscribe', 0, { streamId: 1, terminal: 'abuse', capabilities: { outputPause: 1 } });
    for (let i = 0; i < 2000; i++) {
      abuser.send('SetOutputPaused', 1, { paused: true });
      abuser.send('SetOutputPaused', 1, { paused: false });
    }
    await rig.healthy.waitFor(() => abuser.isClosed, 'the pause toggler closed');
    expect(abuser.closeInfo?.code).toBe(1008);
    expect(abuser.closeInfo?.reason).toMatch(/^SNAPSHOT_RATE: /);
    expect(await rig.echo()).toBeLessThan(5000);
  });

  it('counts the snapshot of a Subscribe against the same rate: a client subscribing in bulk is paced, not closed, and slows no one else', async () => {
    rig = await startLimitsRig();
    const rate = DEFAULT_HOST_OPTIONS.maxSnapshotRequestsPerSecond;
    const streams = 3 * rate;
    const churner = await rig.connect();
    churner.subscribe(1, 'churned');
    await churner.waitFor(() => churner.snapshots(1).length === 1, 'the churned terminal opened');
    rig.backends.get('churned')!.emit(`${'z'.repeat(79)}\r\n`.repeat(1000));
    // Connected first: on a busy machine a WebSocket handshake can outlast the churner's whole pacing.
    const newcomer = await rig.connect();
    const started = performance.now();
    for (let id = 2; id < 2 + streams; id++) churner.subscribe(id, 'churned');
    // Another connection's Subscribe is answered from its own tokens while the churner waits for its own.
    newcomer.subscribe(1, 'churned');
    await newcomer.waitFor(() => newcomer.snapshots(1).length === 1, "the newcomer's snapshot");
    const answered = (id: number) => churner.snapshots(id).length === 1;
    const churnerDone = () => Array.from({ length: streams }, (_, i) => 2 + i).every(answered);
    expect(churnerDone(), 'the newcomer was answered before the churner had all its snapshots').toBe(false);
    expect(await rig.echo()).toBeLessThan(5000);
    await churner.waitFor(churnerDone, "every one of the churner's snapshots", 20_000);
    // A bucket of `rate` at once, then `rate` a second: the last of 3 × rate waits about 2 s.
    expect(performance.now() - started).toBeGreaterThan(((streams - rate - 1) / rate) * 1000 * 0.9);
    expect(rig.host.counters.subscribesPaced).toBeGreaterThanOrEqual(streams - rate);
    expect(churner.closeInfo).toBeUndefined();
  });

  it('counts what a snapshot costs in bytes (maxSnapshotBytesPerSecond): Subscribes wait while the connection is in debt', async () => {
    const budget = 64 * 1024;
    rig = await startLimitsRig({ maxSnapshotBytesPerSecond: budget });
    const churner = await rig.connect();
    churner.subscribe(1, 'large');
    await churner.waitFor(() => churner.snapshots(1).length === 1, 'the large terminal opened');
    // About 80 KB a snapshot: more than a second's budget each.
    rig.backends.get('large')!.emit(`${'z'.repeat(79)}\r\n`.repeat(1000));
    await rig.host.terminal('large')!.screen.settled();
    const started = performance.now();
    for (let id = 2; id <= 5; id++) churner.subscribe(id, 'large');
    await churner.waitFor(() => [2, 3, 4, 5].every((id) => churner.snapshots(id).length === 1), 'every snapshot', 30_000);
    // The first small snapshot and one second's budget went at once; the four of ~80 KB after it are paid off at 64 KiB/s.
    expect(performance.now() - started).toBeGreaterThan(((3 * 80_000 - budget) / budget) * 1000 * 0.8);
    expect(rig.host.counters.subscribesPaced).toBeGreaterThanOrEqual(3);
    expect(churner.closeInfo).toBeUndefined();
  });

  it('shares maxTotalSnapshotBytesPerSecond evenly between the connections spending it: two churners together are paced as one', async () => {
    const budget = 16 * 1024;
    rig = await startLimitsRig({ maxSnapshotBytesPerSecond: budget, maxTotalSnapshotBytesPerSecond: budget });
    const opener = await rig.connect();
    opener.subscribe(1, 'large');
    await opener.waitFor(() => opener.snapshots(1).length === 1, 'the large terminal opened');
    // About 20 KB a snapshot.
    rig.backends.get('large')!.emit(`${'z'.repeat(79)}\r\n`.repeat(250));
    await rig.host.terminal('large')!.screen.settled();
    const churners = [await rig.connect(), await rig.connect()];
    const started = performance.now();
    for (const churner of churners) for (let id = 1; id <= 3; id++) churner.subscribe(id, 'large');
    const done = (churner: (typeof churners)[number]) => [1, 2, 3].every((id) => churner.snapshots(id).length === 1);
    await Promise.all(churners.map((churner) => churner.waitFor(() => done(churner), 'every snapshot', 30_000)));
    // Alone each would pay 3 × 20 KB off at 16 KiB/s (under 3 s); sharing, each pays at 8 KiB/s (over 6 s).
    expect(performance.now() - started).toBeGreaterThan(5000);
    for (const churner of churners) expect(churner.closeInfo).toBeUndefined();
  });
});
