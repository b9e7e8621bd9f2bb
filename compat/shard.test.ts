import { describe, expect, it } from 'vitest';
import { CompatError } from './errors.js';
import { MAX_SHARDS, parseShard, shardUnits } from './shard.js';

describe('--shard i/n', () => {
  it.each(['0/2', '3/2', '1/0', '2', 'a/b', '1/2/3', `1/${MAX_SHARDS + 1}`, ' 1/2'])('refuses %j with BAD_OPTION, naming the value and the form', (text) => {
    const e = (() => {
      try {
        return parseShard(text);
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(CompatError);
    expect((e as CompatError).code).toBe('BAD_OPTION');
    expect((e as CompatError).message).toContain(JSON.stringify(text));
  });

  it('walks every unit of a sweep exactly once across its n shards, whatever n', () => {
    const baselines = ['v0.3.0', 'v0.2.0', 'v0.1.0'];
    const explore = { count: 50, seed: 4_294_967_290 }; // seeds wrap past 2^32 as a whole run draws them
    const everyUnit = baselines.flatMap((b) => [`${b} script`, ...Array.from({ length: 50 }, (_, i) => `${b} seed ${(explore.seed + i) >>> 0}`)]);
    for (const count of [1, 2, 3, 4, 7, 151, 200]) {
      const walked = Array.from({ length: count }, (_, i) => shardUnits(baselines, explore, { index: i + 1, count })).flatMap((units) =>
        units.flatMap((u) => [...(u.script ? [`${u.baseline} script`] : []), ...u.exploreSeeds.map((s) => `${u.baseline} seed ${s}`)]),
      );
      expect(walked.sort(), `${count} shards`).toEqual([...everyUnit].sort());
    }
  });

  it('splits the same way in every shard of a run (the split is computed, never agreed on)', () => {
    const shard = { index: 2, count: 4 };
    expect(shardUnits(['v0.1.0'], { count: 6, seed: 10 }, shard)).toEqual([{ baseline: 'v0.1.0', script: false, exploreSeeds: [10, 14] }]);
    expect(shardUnits(['v0.1.0'], undefined, { index: 1, count: 1 })).toEqual([{ baseline: 'v0.1.0', script: true, exploreSeeds: [] }]);
  });
});
