import fc from 'fast-check';

/** Base seed for every property in a run: TERMWIRE_SEED, or a fixed default so CI is reproducible. */
export const BASE_SEED = (() => {
  const fromEnv = process.env['TERMWIRE_SEED'];
  if (fromEnv === undefined || fromEnv === '') return 0x7e57_c0de;
  const seed = Number(fromEnv);
  if (!Number.isInteger(seed)) throw new Error(`TERMWIRE_SEED must be an integer, got ${JSON.stringify(fromEnv)}`);
  return seed;
})();

/**
 * Runs a property with seed BASE_SEED + offset. On failure the error names the
 * base seed to replay the whole suite (fast-check adds its own seed and path).
 */
export function assertSeeded<Ts>(property: fc.IProperty<Ts>, offset: number, numRuns: number): void {
  const seed = BASE_SEED + offset;
  try {
    fc.assert(property, { seed, numRuns });
  } catch (error) {
    throw seededFailure(error, seed);
  }
}

/** assertSeeded for a property that awaits (fc.asyncProperty). */
export async function assertSeededAsync<Ts>(property: fc.IAsyncProperty<Ts>, offset: number, numRuns: number): Promise<void> {
  const seed = BASE_SEED + offset;
  try {
    await fc.assert(property, { seed, numRuns });
  } catch (error) {
    throw seededFailure(error, seed);
  }
}

function seededFailure(error: unknown, seed: number): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`property failed with seed ${seed} (replay with TERMWIRE_SEED=${BASE_SEED})\n${message}`, { cause: error });
}
