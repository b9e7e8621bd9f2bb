import { numberAt } from '../../src/manifest/limit-values.js';
import { readOptionDefaults } from '../manifest/baseline-limits.js';

const MiB = 1024 * 1024;

/** What every release so far holds for a stream: a window growing to 2 MiB, then a queue of 4 MiB past it. */
const RELEASED_HOLD = { streamWindowMaxBytes: 2 * MiB, streamQueueMaxBytes: 4 * MiB } as const;

/** What the overflow step prints when the hosts' defaults are those of every release so far. */
export const RELEASED_OVERFLOW_EMIT_BYTES = overflowEmitBytes([RELEASED_HOLD.streamWindowMaxBytes + RELEASED_HOLD.streamQueueMaxBytes]);

/**
 * The most a host of this build holds for a stream whose client returns no
 * credit: its window at the largest, then its queue. Read from the build's own
 * option defaults, so a host that queues more is still made to overflow.
 * Read once per build dir and process: a built dir does not change under a run.
 */
export function hostHoldsBytes(buildDir: string): Promise<number> {
  let holds = holdsByDir.get(buildDir);
  if (!holds) holdsByDir.set(buildDir, (holds = readHolds(buildDir)));
  return holds;
}

const holdsByDir = new Map<string, Promise<number>>();

async function readHolds(buildDir: string): Promise<number> {
  const host = (await readOptionDefaults(buildDir, ['host']))?.host;
  const read = (name: keyof typeof RELEASED_HOLD) => numberAt(host, name) ?? RELEASED_HOLD[name];
  return read('streamWindowMaxBytes') + read('streamQueueMaxBytes');
}

/**
 * What the overflow step prints: past what either host of the run holds, with
 * 1 MiB to spare, so each must drop output and repaint. Decided once per run,
 * so all four pairings print the same text.
 */
export function overflowEmitBytes(holds: readonly number[]): number {
  return Math.max(...holds) + MiB;
}
