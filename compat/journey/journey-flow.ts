import { numberAt } from '../../src/manifest/limit-values.js';
import { readOptionDefaults } from '../manifest/baseline-limits.js';
import type { FlowLimits } from '../peer/flow-limits-arg.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** What every release so far holds by default. */
export const RELEASED_FLOW: FlowLimits = { streamWindowInitialBytes: 512 * KiB, streamWindowMaxBytes: 2 * MiB, streamQueueMaxBytes: 4 * MiB, connectionWindowInitialBytes: 2 * MiB, connectionWindowMaxBytes: 8 * MiB };

/**
 * What the gate sets on every host of a run whose peers all take `flowLimits`
 * (PEER_HOST_ARGS) and `ackBatchBytes` (PEER_CLIENT_ARGS): the released flow
 * at a small scale, so the steps that prove credit, window growth and
 * overflow print hundreds of KiB, not MiBs, which every peer's screen parses
 * and every recording carries. The queue holds a whole burst emit, so no
 * burst overflows whatever credit is in flight.
 */
export const GATE_FLOW: FlowLimits = { streamWindowInitialBytes: 64 * KiB, streamWindowMaxBytes: 128 * KiB, streamQueueMaxBytes: 256 * KiB, connectionWindowInitialBytes: 256 * KiB, connectionWindowMaxBytes: 1 * MiB };

/**
 * The Ack batch the gate sets on every client of such a run: below the first
 * window, as the released 192 KiB is below 512 KiB, so credit returns by
 * bytes, as with the released sizes, and not only by the batch's timer.
 */
export const GATE_ACK_BATCH_BYTES = 48 * KiB;

/** The output sizes every pairing of a run prints, decided once per run so all four print the same text. */
export interface JourneyFlow {
  /** Set on every host peer of the run; absent where a build's peers cannot take the gate's flow, and each host keeps its own defaults. */
  readonly hostLimits?: FlowLimits;
  /** Set on every client peer of the run with hostLimits; each client keeps its own default where it is absent. */
  readonly clientAckBatchBytes?: number;
  /** Each of the burst step's emits: past the stream's first window, so credit must return, and within its queue, so nothing overflows; the two together pass the connection's first window. */
  readonly burstEmitBytes: number;
  /** What a link may hold unsent in the burst where ackOutput is negotiated: the window at its largest plus slack for the frames around the output. */
  readonly burstBufferBoundBytes: number;
  /** The side stream's burst: past its first window, so it needs credit of its own. */
  readonly sideBurstBytes: number;
  /** The overflow step's emit: past what either host of the run holds, so each must drop output and repaint. */
  readonly overflowEmitBytes: number;
}

/** A run's sizes, in proportion to its first window: `holds` is what each host of the run holds for a stream that returns no credit. */
function flowOf(limits: FlowLimits, holds: readonly number[], set: boolean): JourneyFlow {
  const unit = limits.streamWindowInitialBytes;
  return {
    ...(set ? { hostLimits: limits, clientAckBatchBytes: GATE_ACK_BATCH_BYTES } : {}),
    burstEmitBytes: 3 * unit,
    burstBufferBoundBytes: limits.streamWindowMaxBytes + unit / 4,
    sideBurstBytes: 1.5 * unit,
    overflowEmitBytes: Math.max(...holds) + 2 * unit,
  };
}

/** What a host holds for a stream whose client returns no credit: its window at the largest, then its queue. */
const holdOf = (limits: Pick<FlowLimits, 'streamWindowMaxBytes' | 'streamQueueMaxBytes'>) => limits.streamWindowMaxBytes + limits.streamQueueMaxBytes;

/** What a build's peers take of the run's flow, and what its host holds by default. */
export interface FlowTaker {
  readonly takesFlowLimits: boolean;
  readonly takesAckBatchBytes: boolean;
  readonly holdsBytes: number;
}

/** The run's flow: the gate's own where every build's host and client peers take it, else each host's defaults (read from its dist, so a host that queues more is still made to overflow). */
export function journeyFlow(builds: readonly FlowTaker[]): JourneyFlow {
  if (builds.every((b) => b.takesFlowLimits && b.takesAckBatchBytes)) return flowOf(GATE_FLOW, [holdOf(GATE_FLOW)], true);
  return flowOf(RELEASED_FLOW, builds.map((b) => b.holdsBytes), false);
}

/** The flow of a run between builds of one peer protocol that take no flow limits, at the released defaults. */
export const RELEASED_JOURNEY_FLOW = flowOf(RELEASED_FLOW, [holdOf(RELEASED_FLOW)], false);

/**
 * The most a host of this build holds for a stream whose client returns no
 * credit, by its own option defaults. Read once per build dir and process:
 * a built dir does not change under a run.
 */
export function hostHoldsBytes(buildDir: string): Promise<number> {
  let holds = holdsByDir.get(buildDir);
  if (!holds) holdsByDir.set(buildDir, (holds = readHolds(buildDir)));
  return holds;
}

const holdsByDir = new Map<string, Promise<number>>();

async function readHolds(buildDir: string): Promise<number> {
  const host = (await readOptionDefaults(buildDir, ['host']))?.host;
  const read = (name: 'streamWindowMaxBytes' | 'streamQueueMaxBytes') => numberAt(host, name) ?? RELEASED_FLOW[name];
  return holdOf({ streamWindowMaxBytes: read('streamWindowMaxBytes'), streamQueueMaxBytes: read('streamQueueMaxBytes') });
}
