import { MUTATED_FOLDERS, type MutatedFolder, mutantId, type WireMutant } from './mutant.js';

/** A made-up mutant for tests: only its identity fields matter to the sampler, the shards and the score. */
export function fakeMutant(folder: MutatedFolder, n: number, over: Partial<WireMutant> = {}): WireMutant {
  const at = { file: `${folder}/f${n % 7}.ts`, line: n + 1, column: 3, mutator: 'EqualityOperator', original: `a${n} === b`, replacement: `a${n} !== b`, ...over };
  return { ...at, id: mutantId(at), folder, start: 0, end: at.original.length, ...over };
}

/** `sizes[i]` mutants in folder i of MUTATED_FOLDERS. */
export function fakeMutants(sizes: readonly number[]): WireMutant[] {
  return MUTATED_FOLDERS.flatMap((folder, i) => Array.from({ length: sizes[i] ?? 0 }, (_, n) => fakeMutant(folder, n)));
}
