import { describe, expect, it } from 'vitest';
import { enumerateMutants } from './enumerate.js';
import { MUTATED_FOLDERS } from './mutant.js';
import { folderQuotas, sampleMutants } from './sample.js';
import { fakeMutants } from './test-mutants.js';

const SIZES = [590, 172, 2121, 950, 446, 933];
const ids = (ms: readonly { id: string }[]) => ms.map((m) => m.id);

describe('sampleMutants', () => {
  const all = fakeMutants(SIZES);

  it('draws the same mutants in the same order for the same seed, whatever order the mutants come in', () => {
    const reversed = [...all].reverse();
    expect(ids(sampleMutants(reversed, 40, 7))).toEqual(ids(sampleMutants(all, 40, 7)));
  });

  it('draws other mutants for another seed', () => {
    const a = new Set(ids(sampleMutants(all, 40, 7)));
    const b = ids(sampleMutants(all, 40, 8));
    expect(b.filter((id) => a.has(id)).length).toBeLessThan(20);
  });

  it('never draws a mutant twice, and draws everything when asked for more than there is', () => {
    const some = sampleMutants(all, 300, 1);
    expect(new Set(ids(some)).size).toBe(300);
    expect(new Set(ids(sampleMutants(all.slice(0, 50), 80, 1))).size).toBe(50);
  });

  it('spreads over every folder, in proportion to its mutants, and interleaves them', () => {
    const sample = sampleMutants(all, 200, 3);
    const per = MUTATED_FOLDERS.map((f) => sample.filter((m) => m.folder === f).length);
    expect(per).toEqual(folderQuotas(SIZES, 200));
    expect(per.every((n) => n > 0)).toBe(true);
    // src/host holds 41% of the mutants; an equal split would give it a sixth.
    expect(per[2]).toBeGreaterThanOrEqual(80);
    // The first six are one from each folder: a shard or a run cut short still spreads.
    expect(new Set(sample.slice(0, 6).map((m) => m.folder)).size).toBe(6);
  });

  it('gives a small folder one mutant even when its share rounds to none', () => {
    expect(folderQuotas([1000, 3, 1000, 1000, 1000, 1000], 6)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(folderQuotas([1000, 3, 1000, 1000, 1000, 1000], 12).reduce((a, b) => a + b)).toBe(12);
    expect(folderQuotas([0, 5, 5, 0, 0, 0], 4)).toEqual([0, 2, 2, 0, 0, 0]);
  });

  it("samples the real source's mutants over all six folders", async () => {
    const real = await enumerateMutants(process.cwd());
    const sample = sampleMutants(real, 200, 2026);
    expect(sample).toHaveLength(200);
    expect(new Set(sample.map((m) => m.folder))).toEqual(new Set(MUTATED_FOLDERS));
    expect(real.some((m) => m.file.endsWith('.test.ts'))).toBe(false);
  });
});
