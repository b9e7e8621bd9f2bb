import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full collection at the end of every round, timed as part of it, bills
// each contender for its own garbage instead of the one measured after it.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

export interface MeasureOptions {
  /** Time spent per measurement round, in ms. Default 120. */
  readonly roundMs: number;
  /** Alternating rounds per contender; the median is reported. Default 5. */
  readonly rounds: number;
}

export const DEFAULT_MEASURE_OPTIONS: MeasureOptions = Object.freeze({
  roundMs: Number(process.env['TERMWIRE_BENCH_ROUND_MS'] ?? 120),
  rounds: Number(process.env['TERMWIRE_BENCH_ROUNDS'] ?? 5),
});

/** Results go here so the optimiser cannot drop the measured work. */
export let sink = 0;
export function consume(value: number): void {
  sink = (sink + value) | 0;
}

/** Runs `op` in batches for about `ms`, then collects its garbage; returns operations per second. */
function opsPerSecond(op: () => void, ms: number): number {
  collectGarbage();
  let batch = 1;
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) op();
    ops += batch;
    elapsed = performance.now() - start;
    if (elapsed < ms / 20) batch *= 2;
  }
  collectGarbage();
  return (ops * 1000) / (performance.now() - start);
}

/** The middle value; for an even count, the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Measures contenders side by side: a warm-up, then rounds that alternate
 * between them so drift (thermal, GC, JIT tiers) hits both alike. Returns the
 * median operations per second of each, in order.
 */
export function compare(contenders: readonly (() => void)[], options: MeasureOptions = DEFAULT_MEASURE_OPTIONS): number[] {
  for (const op of contenders) opsPerSecond(op, options.roundMs / 2);
  const samples = contenders.map(() => [] as number[]);
  for (let round = 0; round < options.rounds; round++) {
    contenders.forEach((op, i) => samples[i]!.push(opsPerSecond(op, options.roundMs)));
  }
  return samples.map(median);
}
