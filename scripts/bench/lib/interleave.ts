import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { median } from './measure.js';

// As in measure.ts: a full collection between trials, so no trial pays for the garbage of the one before it.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** One trial's figures, by measure name (e.g. { receivedBps, parsedBps }). */
export type Sample = Readonly<Record<string, number>>;

/** An asynchronous contender: runs one trial and returns its figures. */
export type Trial = () => Promise<Sample>;

export interface InterleaveOptions {
  /** Alternating rounds per contender; the median is reported. */
  readonly rounds: number;
  /** Untimed rounds first, so windows, JIT tiers and caches are warm. */
  readonly warmupRounds: number;
}

/**
 * Runs asynchronous contenders side by side, one trial each per round
 * (A, B, C, A, B, C ...), so load from other processes hits all alike.
 * Returns, for each contender in order, the median of each of its measures.
 */
export async function interleave(contenders: readonly Trial[], options: InterleaveOptions): Promise<Sample[]> {
  const samples = contenders.map(() => [] as Sample[]);
  for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
    for (const [i, trial] of contenders.entries()) {
      collectGarbage();
      const sample = await trial();
      if (round >= options.warmupRounds) samples[i]!.push(sample);
    }
  }
  return samples.map((list) => {
    const keys = Object.keys(list[0] ?? {});
    return Object.fromEntries(keys.map((key) => [key, median(list.map((s) => measure(s, key)))]));
  });
}

/** A named figure of a sample; a missing one is a bug in the section, not a slow machine. */
export function measure(sample: Sample, key: string): number {
  const value = sample[key];
  if (value === undefined) throw new Error(`bench sample has no '${key}' (has ${Object.keys(sample).join(', ')})`);
  return value;
}

/**
 * Repeats a burst of `bytes` until `minSeconds` have passed, so a fast
 * contender is not timed over a few ms that one scheduler slice can skew.
 * `burst` returns seconds per measure; the result is MB/s per measure over
 * all repetitions.
 */
export async function sustainedMbps(bytes: number, minSeconds: number, burst: () => Promise<Sample>): Promise<Sample> {
  const seconds: Record<string, number> = {};
  let repetitions = 0;
  const start = performance.now();
  do {
    for (const [key, value] of Object.entries(await burst())) seconds[key] = (seconds[key] ?? 0) + value;
    repetitions++;
  } while ((performance.now() - start) / 1000 < minSeconds);
  return Object.fromEntries(Object.entries(seconds).map(([key, s]) => [key, (repetitions * bytes) / s / 1e6]));
}
