/**
 * mulberry32: a 32-bit seeded generator. Written here rather than taken from
 * fast-check, which is a dev dependency and the gate ships without it; a
 * schedule must replay exactly from its seed on any machine, so nothing else
 * may feed it.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
