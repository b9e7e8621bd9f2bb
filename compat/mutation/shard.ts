import type { Shard } from '../shard.js';

/** The mutants of one shard: mutant i of the sample goes to shard (i mod n) + 1, so the shards of one matrix split it exactly once. */
export function mutantsOfShard<T>(sample: readonly T[], shard: Shard): T[] {
  return sample.filter((_, i) => i % shard.count === shard.index - 1);
}
