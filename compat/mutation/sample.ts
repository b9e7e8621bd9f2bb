import { seededRandom } from '../explore/prng.js';
import { MUTATED_FOLDERS, type WireMutant } from './mutant.js';

/**
 * How many of `n` each folder gets: in proportion to the mutants it holds
 * (largest remainders), and at least one each while `n` allows, so a small
 * folder such as src/capabilities is never left out of a small sample.
 */
export function folderQuotas(sizes: readonly number[], n: number): number[] {
  const total = sizes.reduce((a, b) => a + b, 0);
  const want = Math.min(n, total);
  const quotas = sizes.map(() => 0);
  let left = want;
  const nonEmpty = sizes.map((s, i) => (s > 0 ? i : -1)).filter((i) => i >= 0);
  if (want >= nonEmpty.length) for (const i of nonEmpty) (quotas[i] = 1), left--;
  const spare = sizes.map((s, i) => s - quotas[i]!);
  const spareTotal = spare.reduce((a, b) => a + b, 0);
  if (left > 0 && spareTotal > 0) {
    const exact = spare.map((s) => (s * left) / spareTotal);
    const floors = exact.map(Math.floor);
    let rest = left - floors.reduce((a, b) => a + b, 0);
    floors.forEach((f, i) => (quotas[i]! += f));
    // Largest remainder first; ties to the earlier folder, so the split is a function of the sizes alone.
    const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
    for (const { i } of order) {
      if (rest === 0) break;
      if (quotas[i]! < sizes[i]!) (quotas[i]! += 1), rest--;
    }
  }
  return quotas;
}

/** Fisher-Yates driven by the seeded generator: the same seed draws the same order on any machine. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A seeded sample of `n` mutants spread over the mutated folders (folderQuotas),
 * interleaved folder by folder so that any shard, or a run stopped early,
 * still spreads over them. Depends only on the mutants' ids, `n` and `seed`:
 * the order the mutants come in does not matter.
 */
export function sampleMutants(mutants: readonly WireMutant[], n: number, seed: number): WireMutant[] {
  const random = seededRandom(seed);
  const byFolder = MUTATED_FOLDERS.map((folder) => mutants.filter((m) => m.folder === folder).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  const quotas = folderQuotas(byFolder.map((f) => f.length), n);
  const picks = byFolder.map((folder, i) => shuffled(folder, random).slice(0, quotas[i]));
  const sample: WireMutant[] = [];
  for (let round = 0; sample.length < picks.reduce((a, p) => a + p.length, 0); round++) {
    for (const p of picks) if (round < p.length) sample.push(p[round]!);
  }
  return sample;
}
