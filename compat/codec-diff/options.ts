export interface DecoderCheckOptions {
  /** Mutated frames per baseline; 0 runs none. */
  readonly frames: number;
  readonly seed: number;
}

/** A fixed seed by default, so a pull request's verdict never depends on a draw; `--seed` moves it. */
export const DEFAULT_DECODER_CHECK: DecoderCheckOptions = { frames: 100_000, seed: 1 };
