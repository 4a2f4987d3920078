/**
 * A seeded PRNG (mulberry32) shared by the crash worker and the parent: both must draw the same
 * numbers in the same order to generate the same workload.
 */
export type Rng = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
};

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, chance: (p) => next() < p, pick: (items) => items[int(items.length)]! };
}

/** FNV-1a of a string, for seeds and op fingerprints. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Seeds named by `spec`: a range `from-to` or a comma-separated list (tests' *_SEEDS variables for longer runs). */
export function seedList(spec: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(spec);
  if (range) return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i);
  return spec.split(',').map(Number);
}
