import { CompatError } from './errors.js';

/** `--shard i/n`: this run is shard `index` (1-based) of `count`. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** What one shard walks against one baseline: its scripted comparison (static rules, journeys, decoders, coverage) and some explore seeds. */
export interface ShardUnits {
  readonly baseline: string;
  readonly script: boolean;
  readonly exploreSeeds: readonly number[];
}

/** The most shards a run may be split into: more would leave most of them empty for any sweep a CI matrix runs. */
export const MAX_SHARDS = 256;

export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new CompatError('BAD_OPTION', `--shard ${JSON.stringify(text)}: expected i/n with 1 <= i <= n <= ${MAX_SHARDS}, e.g. 2/4`);
  }
  return { index, count };
}

/**
 * Splits a run into units, baseline by baseline in the resolved order: each
 * baseline's scripted comparison, then each of its explore seeds. Unit u goes
 * to shard (u mod n) + 1, so the split depends only on the baselines, the
 * explore count and seed, and n: every shard of one CI matrix computes the
 * same split, and the shards together walk every unit exactly once.
 */
export function shardUnits(baselines: readonly string[], explore: { readonly count: number; readonly seed: number } | undefined, shard: Shard): ShardUnits[] {
  let unit = 0;
  const mine = () => unit++ % shard.count === shard.index - 1;
  return baselines.map((baseline) => {
    const script = mine();
    const exploreSeeds: number[] = [];
    for (let i = 0; i < (explore?.count ?? 0); i++) if (mine()) exploreSeeds.push((explore!.seed + i) >>> 0);
    return { baseline, script, exploreSeeds };
  });
}
