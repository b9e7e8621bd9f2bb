import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GATE_ACK_BATCH_BYTES, GATE_FLOW, hostHoldsBytes, journeyFlow, RELEASED_FLOW, RELEASED_JOURNEY_FLOW } from '../../compat/journey/journey-flow.js';
import { BURST_EMITS, burstText } from '../../compat/journey/surface-steps.js';
import { parseFlowLimitsArg } from '../../compat/peer/flow-limits-arg.js';
import { DEFAULT_CLIENT_OPTIONS } from '../../src/client/options.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A build dir whose dist holds only host option defaults, as a built release's does. */
function buildWithHostDefaults(host: Record<string, number> | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-holds-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist', 'src', 'host'), { recursive: true });
  if (host) writeFileSync(join(dir, 'dist', 'src', 'host', 'options.js'), `export const DEFAULT_HOST_OPTIONS = ${JSON.stringify(host)};\n`);
  return dir;
}

const released = (holdsBytes: number) => ({ takesFlowLimits: false, takesAckBatchBytes: false, holdsBytes });
const takesLimits = (holdsBytes: number) => ({ takesFlowLimits: true, takesAckBatchBytes: true, holdsBytes });

describe('the run prints past what either host of the run holds', () => {
  it("reads each build's window and queue from its own dist, and prints 1 MiB past the larger where a host takes no limits", async () => {
    const releasedHolds = await hostHoldsBytes(buildWithHostDefaults({ streamWindowMaxBytes: 2 * MiB, streamQueueMaxBytes: 4 * MiB }));
    const queuesMore = await hostHoldsBytes(buildWithHostDefaults({ streamWindowMaxBytes: 4 * MiB, streamQueueMaxBytes: 16 * MiB }));
    expect([releasedHolds, queuesMore]).toEqual([6 * MiB, 20 * MiB]);
    expect(journeyFlow([released(releasedHolds), takesLimits(queuesMore)]).overflowEmitBytes).toBe(21 * MiB);
    expect(journeyFlow([released(releasedHolds), released(releasedHolds)])).toEqual(RELEASED_JOURNEY_FLOW);
  });

  it("falls back to what every release so far holds where a build's dist does not say", async () => {
    expect(await hostHoldsBytes(buildWithHostDefaults(undefined))).toBe(6 * MiB);
    expect(await hostHoldsBytes(buildWithHostDefaults({ streamQueueMaxBytes: 8 * MiB }))).toBe(10 * MiB);
  });

  it("this build's own defaults are what it holds", async () => {
    expect(await hostHoldsBytes(join(import.meta.dirname, '..', '..'))).toBe(DEFAULT_HOST_OPTIONS.streamWindowMaxBytes + DEFAULT_HOST_OPTIONS.streamQueueMaxBytes);
  });
});

describe("the run's flow", () => {
  it("is the released one, unchanged, unless every build's host peer takes flow limits and its client peer an Ack batch", () => {
    expect(journeyFlow([released(6 * MiB), takesLimits(6 * MiB)]).hostLimits).toBeUndefined();
    const hostOnly = { ...takesLimits(6 * MiB), takesAckBatchBytes: false };
    expect(journeyFlow([hostOnly, takesLimits(6 * MiB)])).toEqual(journeyFlow([released(6 * MiB), released(6 * MiB)]));
    expect(RELEASED_JOURNEY_FLOW).toEqual({ burstEmitBytes: 1.5 * MiB, burstBufferBoundBytes: 2 * MiB + 128 * KiB, sideBurstBytes: 768 * KiB, overflowEmitBytes: 7 * MiB });
  });

  it("is the gate's where they all do, whatever their defaults hold", () => {
    const flow = journeyFlow([takesLimits(6 * MiB), takesLimits(20 * MiB)]);
    expect(flow.hostLimits).toEqual(GATE_FLOW);
    expect(flow.clientAckBatchBytes).toBe(GATE_ACK_BATCH_BYTES);
    expect(flow.overflowEmitBytes).toBe(GATE_FLOW.streamWindowMaxBytes + GATE_FLOW.streamQueueMaxBytes + 2 * GATE_FLOW.streamWindowInitialBytes);
  });

  it.each([
    ['released', RELEASED_FLOW, RELEASED_JOURNEY_FLOW],
    ['gate', GATE_FLOW, journeyFlow([takesLimits(0)])],
  ] as const)('keeps the shape its steps prove at the %s scale', (_scale, limits, flow) => {
    // Credit must return for the burst, and it must not overflow: a whole emit, as printed, fits in the queue
    // (a host reads the script terminal's emit at once, so it may queue all of it, whatever credit is in flight).
    expect(flow.burstEmitBytes).toBeGreaterThan(limits.streamWindowInitialBytes);
    expect(Buffer.byteLength(burstText(1, flow.burstEmitBytes))).toBeLessThan(limits.streamQueueMaxBytes);
    expect(BURST_EMITS * flow.burstEmitBytes).toBeGreaterThan(limits.connectionWindowInitialBytes);
    expect(flow.sideBurstBytes).toBeGreaterThan(limits.streamWindowInitialBytes);
    expect(flow.overflowEmitBytes).toBeGreaterThan(limits.streamWindowMaxBytes + limits.streamQueueMaxBytes);
    // A client returns credit once its Ack batch is unacked: the first window holds more, so credit flows by bytes.
    expect(limits.streamWindowInitialBytes).toBeGreaterThan(flow.clientAckBatchBytes ?? DEFAULT_CLIENT_OPTIONS.ackBatchBytes);
    // The host pauses a terminal at subscriberHoldBytes queued, at most half the queue.
    expect(limits.streamQueueMaxBytes / 2).toBeGreaterThanOrEqual(DEFAULT_HOST_OPTIONS.subscriberHoldBytes);
  });
});

describe("the host peer's --flow-limits", () => {
  it('takes the flow limits, each of them', () => {
    expect(parseFlowLimitsArg(JSON.stringify(GATE_FLOW))).toEqual(GATE_FLOW);
    expect(parseFlowLimitsArg(JSON.stringify(RELEASED_FLOW))).toEqual(RELEASED_FLOW);
  });

  const withFlow = (change: Record<string, unknown>) => JSON.stringify({ ...GATE_FLOW, ...change });
  it.each([
    ['not JSON', '{streamQueueMaxBytes: 1}'],
    ['not an object', '[1]'],
    ['a flow limit left out', JSON.stringify({ ...GATE_FLOW, streamQueueMaxBytes: undefined })],
    ['another host limit', withFlow({ maxTerminals: 64 })],
    ['an unknown limit', withFlow({ streamQueueBytes: 1024 })],
    ['zero', withFlow({ streamQueueMaxBytes: 0 })],
    ['a fraction', withFlow({ streamQueueMaxBytes: 1.5 })],
    ['a string', withFlow({ streamQueueMaxBytes: '1024' })],
    ['a stream window that starts past its largest', withFlow({ streamWindowInitialBytes: 1024 * KiB, streamWindowMaxBytes: 512 * KiB })],
    ['a connection window that starts past its largest', withFlow({ connectionWindowInitialBytes: 8 * MiB })],
  ])('refuses %s', (_what, text) => {
    expect(parseFlowLimitsArg(text)).toBeUndefined();
  });
});
