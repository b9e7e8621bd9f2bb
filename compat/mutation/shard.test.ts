import { describe, expect, it } from 'vitest';
import { type MutationRun, MutationFileError, mergeMutationRuns } from './results-file.js';
import { sampleMutants } from './sample.js';
import type { MutantResult } from './score.js';
import { mutantsOfShard } from './shard.js';
import { fakeMutants } from './test-mutants.js';

const sample = sampleMutants(fakeMutants([30, 10, 40, 20, 15, 25]), 23, 5);

function shardRun(index: number, count: number, over: Partial<MutationRun> = {}): MutationRun {
  const results: MutantResult[] = mutantsOfShard(sample, { index, count }).map((mutant, i) => ({ mutant, status: i % 3 ? 'killed' : 'survived' }));
  return { format: 'termwire-mutation/1', tree: 't1', against: 'v0.2.0', seed: 5, sampleSize: sample.length, mutantsInSource: 140, shard: { index, count }, results, ...over };
}

describe('mutantsOfShard', () => {
  it('gives every mutant of the sample to exactly one shard', () => {
    for (const count of [1, 2, 3, 7, 23, 30]) {
      const shards = Array.from({ length: count }, (_, i) => mutantsOfShard(sample, { index: i + 1, count }));
      expect(shards.flat().map((m) => m.id).sort()).toEqual(sample.map((m) => m.id).sort());
    }
  });

  it('splits evenly: shard sizes differ by at most one', () => {
    const sizes = [1, 2, 3, 4].map((index) => mutantsOfShard(sample, { index, count: 4 }).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });
});

describe('mergeMutationRuns', () => {
  it('joins all shards of one run into the whole sample', () => {
    const merged = mergeMutationRuns([shardRun(2, 3), shardRun(1, 3), shardRun(3, 3)]);
    expect(merged.shard).toBeUndefined();
    expect(merged.results.map((r) => r.mutant.id).sort()).toEqual(sample.map((m) => m.id).sort());
  });

  it('refuses a missing shard, a shard given twice, and shards of another run', () => {
    expect(() => mergeMutationRuns([shardRun(1, 3), shardRun(3, 3)])).toThrow(/missing 2\/3/);
    expect(() => mergeMutationRuns([shardRun(1, 2), shardRun(1, 2), shardRun(2, 2)])).toThrow(MutationFileError);
    expect(() => mergeMutationRuns([shardRun(1, 2), shardRun(2, 2, { seed: 6 })])).toThrow(/seed/);
    expect(() => mergeMutationRuns([shardRun(1, 2), shardRun(2, 2, { tree: 't2' })])).toThrow(/tree/);
    expect(() => mergeMutationRuns([shardRun(1, 2), shardRun(2, 3)])).toThrow(/shards/);
  });
});
