/** A seeded PRNG (mulberry32): every random choice a test makes comes from one, so its seed replays it. The gate's explore mode draws from the same one. */
export { seededRandom } from '../../compat/explore/prng.js';
