import { readFileSync } from 'node:fs';
import type { Shard } from '../shard.js';
import type { MutantResult } from './score.js';

/** What a run (or one shard of it) hands to `merge` and to machines: enough to check that shards belong together. */
export interface MutationRun {
  readonly format: 'termwire-mutation/1';
  /** The working tree's id: shards of different sources must not be merged. */
  readonly tree: string;
  /** The release the gate compared against, as the gate named it. */
  readonly against: string;
  readonly seed: number;
  /** Mutants sampled over all shards, and how many the source has. */
  readonly sampleSize: number;
  readonly mutantsInSource: number;
  readonly shard?: Shard;
  /** CPU-seconds of the gate run on the unmutated tree that every run makes first. */
  readonly unmutatedCpuSeconds?: number;
  readonly results: readonly MutantResult[];
}

export class MutationFileError extends Error {}

export function readMutationRun(path: string): MutationRun {
  let run: MutationRun;
  try {
    run = JSON.parse(readFileSync(path, 'utf8')) as MutationRun;
  } catch (e) {
    throw new MutationFileError(`${path} cannot be read as a mutation result (${(e as Error).message}); write each shard's with --output`);
  }
  if (run?.format !== 'termwire-mutation/1' || !Array.isArray(run.results)) throw new MutationFileError(`${path} is not a mutation result (format ${JSON.stringify(run?.format)})`);
  return run;
}

/**
 * Joins the shards of one run: exactly shards 1/n to n/n, each once, of the
 * same tree, release, seed and sample. Anything else would print a score for
 * a sample nobody drew.
 */
export function mergeMutationRuns(runs: readonly MutationRun[]): MutationRun {
  const first = runs[0];
  if (!first) throw new MutationFileError('merge needs the result files of every shard');
  const count = first.shard?.count;
  if (count === undefined) throw new MutationFileError('merge joins shard results; the first file is of an unsharded run');
  for (const r of runs) {
    for (const key of ['tree', 'against', 'seed', 'sampleSize'] as const) {
      if (r[key] !== first[key]) throw new MutationFileError(`the shards are not of one run: ${key} ${JSON.stringify(r[key])} against ${JSON.stringify(first[key])}`);
    }
    if (r.shard?.count !== count) throw new MutationFileError(`the shards are not of one run: split in ${r.shard?.count ?? 'no'} shards against ${count}`);
  }
  const indexes = runs.map((r) => r.shard!.index).sort((a, b) => a - b);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !indexes.includes(i));
  if (missing.length || indexes.length !== count) throw new MutationFileError(`expected shards 1/${count} to ${count}/${count} once each; ${missing.length ? `missing ${missing.map((i) => `${i}/${count}`).join(', ')}` : 'some shard is given twice'}`);
  const results = runs.flatMap((r) => r.results);
  if (results.length !== first.sampleSize) throw new MutationFileError(`the shards hold ${results.length} results for a sample of ${first.sampleSize}`);
  const { shard: _shard, unmutatedCpuSeconds: _cpu, ...rest } = first;
  return { ...rest, results };
}
