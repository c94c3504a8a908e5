/** Seeded randomness for test data: every run sees the same bars. */
import { seededUniform } from "../../src/synthetic/rng.js";

/** mulberry32 seeded once: the library's one seeded generator (src/synthetic/rng.ts). */
export const prng: (seed: number) => () => number = seededUniform;

/** A standard normal draw (Box–Muller). */
export function gaussian(rand: () => number): number {
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A random 1/0 condition series, true with probability p. */
export function randomBooleans(seed: number, length: number, p: number): Float64Array {
  const rand = prng(seed);
  return Float64Array.from({ length }, () => (rand() < p ? 1 : 0));
}
