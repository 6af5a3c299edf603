/** A seeded random source (mulberry32): the same --seed gives the same kill moments, on any machine. */
export interface Rng {
  /** a float in [0, 1) */
  next(): number;
  /** a whole number from min to max, both included */
  int(min: number, max: number): number;
  /** the items in an order of this seed's */
  shuffle<T>(items: readonly T[]): T[];
}

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    shuffle(items) {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}

/** a seed for a run that names none: printed, so the run can be repeated */
export const freshSeed = () => 1 + Math.floor(Math.random() * 2_147_483_646);
