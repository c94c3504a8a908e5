/**
 * Counter-based randomness for the synthetic universe. Every random decision is drawn from a
 * small PRNG seeded by a hash of (seed, symbol, level, bar time), so a bar's content depends
 * only on its key and never on which other bars a caller asked for: 100 daily bars are the
 * last 100 of 300, and the same seed gives the same bars on every machine. No Math.random.
 */

const TWO_32 = 4294967296;

/** murmur3's 32-bit finalizer: a fast full-avalanche mix. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Folds any safe integer (negative, or beyond 32 bits) into a 32-bit hash. */
export function hashInteger(value: number): number {
  const lo = ((value % TWO_32) + TWO_32) % TWO_32;
  const hi = Math.floor(value / TWO_32) | 0;
  return mix32(mix32(lo ^ 0x9e3779b9) ^ hi);
}

/** FNV-1a over UTF-16 code units, then mixed: symbols key their own random streams. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** The 32-bit seed of one random stream. */
export function streamKey(seedHash: number, symbolHash: number, level: number, index: number): number {
  let h = mix32(seedHash ^ 0x85ebca6b);
  h = mix32(h ^ symbolHash);
  h = mix32(h ^ Math.imul(level + 1, 0x27d4eb2f));
  return mix32(h ^ hashInteger(index));
}

/**
 * mulberry32: one 32-bit word of state, fast, and good enough for simulation. Reseeded for
 * every stream rather than allocated, so generating a universe allocates no generators.
 */
export class Rng {
  private state = 0;
  private spare = 0;
  private hasSpare = false;

  reseed(key: number): void {
    this.state = key >>> 0;
    this.hasSpare = false;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / TWO_32;
  }

  /** Standard normal (Marsaglia's polar method: no trigonometry; the pair's second value is kept). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u: number;
    let v: number;
    let q: number;
    do {
      u = 2 * this.next() - 1;
      v = 2 * this.next() - 1;
      q = u * u + v * v;
    } while (q >= 1 || q === 0);
    const f = Math.sqrt((-2 * Math.log(q)) / q);
    this.spare = v * f;
    this.hasSpare = true;
    return u * f;
  }
}

/**
 * One seeded stream of uniforms in [0, 1) (the {@link Rng} above, seeded once): for tests and
 * benches that need the same numbers on every run and machine.
 */
export function seededUniform(seed: number): () => number {
  const rng = new Rng();
  rng.reseed(seed);
  return () => rng.next();
}
