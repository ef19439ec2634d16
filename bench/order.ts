/**
 * The per-turn arm order of bench/runtime-overhead.ts. A Fisher–Yates shuffle driven by
 * mulberry32, taking the index from the high bits (float × (i+1)): the old LCG's low bits cycle
 * with a short period, so only a few orders ever appeared and one arm was always last.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A function giving a new seeded shuffle of `items` on each call. */
export function shuffler<T>(items: readonly T[], seed: number): () => T[] {
  const random = mulberry32(seed);
  return () => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  };
}
