/**
 * Deterministic test series for the kernel tests: seeded random walks with a flat stretch and
 * one-bar spikes, the shapes that break indicator implementations (flat → RSI's zero average
 * loss and σ = 0; spikes → running sums that drift). Prices stay positive and away from 0,
 * because technicalindicators' SD stops updating when a window's mean is exactly 0.
 */
import { expect } from "vitest";
import { standaloneContext } from "../../src/functions/module.js";
import type { Kernel } from "../../src/functions/kernel.js";
import fc from "fast-check";
import type { FunctionModule } from "../../src/functions/module.js";
import { FUNCTIONS } from "../../src/functions/registry.js";

/** mulberry32: a small, fast, seeded PRNG so every run sees the same bars. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface Bars {
  readonly name: string;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  /** Typical price level, the natural absolute scale for differences such as MACD. */
  readonly scale: number;
}

export interface WalkOptions {
  readonly name: string;
  readonly seed: number;
  readonly length?: number;
  readonly start: number;
  /** Per-bar log-return volatility. */
  readonly vol: number;
  /** Per-bar log-return drift. */
  readonly drift?: number;
  /** Bars [flat[0], flat[1]) repeat one price with high = low = close. */
  readonly flat?: readonly [number, number];
  /** Bars whose close jumps by the factor for that one bar only. */
  readonly spikes?: readonly (readonly [number, number])[];
}

export function walk(o: WalkOptions): Bars {
  const n = o.length ?? 300;
  const rand = prng(o.seed);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  let level = o.start;
  for (let i = 0; i < n; i++) {
    const prev = i === 0 ? level : close[i - 1]!;
    if (o.flat && i >= o.flat[0] && i < o.flat[1]) {
      open[i] = high[i] = low[i] = close[i] = prev;
      continue;
    }
    level *= Math.exp((o.drift ?? 0) + o.vol * gaussian(rand));
    const spike = o.spikes?.find(([at]) => at === i);
    const c = spike ? level * spike[1] : level;
    open[i] = prev;
    close[i] = c;
    high[i] = Math.max(prev, c) * (1 + Math.abs(gaussian(rand)) * o.vol * 0.5);
    low[i] = Math.min(prev, c) * (1 - Math.abs(gaussian(rand)) * o.vol * 0.5);
  }
  return { name: o.name, open, high, low, close, scale: o.start };
}

/** The shared fixture: four 300-bar instruments at very different price levels. */
export const FIXTURES: readonly Bars[] = [
  walk({ name: "walk@100", seed: 1, start: 100, vol: 0.02, flat: [120, 150], spikes: [[60, 1.4], [200, 0.6]] }),
  walk({ name: "large@50000", seed: 2, start: 50_000, vol: 0.01, flat: [40, 75], spikes: [[100, 1.25], [250, 0.8]] }),
  walk({ name: "penny@0.5", seed: 3, start: 0.5, vol: 0.05, flat: [200, 230], spikes: [[30, 3], [150, 0.4]] }),
  walk({ name: "trend@20", seed: 4, start: 20, vol: 0.015, drift: 0.004, flat: [260, 280], spikes: [[90, 1.5]] }),
];

/** Runs a kernel over every bar, the way a full backfill would. */
export function run(kernel: Kernel, inputs: readonly Float64Array[], consts: readonly number[]): Float64Array {
  const out = new Float64Array(inputs[0]!.length);
  kernel(inputs, consts, out, 0, out.length, standaloneContext());
  return out;
}

/** A reference result (aligned to the last bar, as technicalindicators returns it) spread over all bars. */
export function alignEnd(ref: readonly (number | undefined)[], length: number): Float64Array {
  const out = new Float64Array(length).fill(NaN);
  const offset = length - ref.length;
  ref.forEach((v, j) => {
    out[offset + j] = v ?? NaN;
  });
  return out;
}

export function firstDefined(xs: Float64Array): number {
  for (let i = 0; i < xs.length; i++) if (!Number.isNaN(xs[i]!)) return i;
  return -1;
}

/**
 * Where `ours` and `ref` disagree beyond `rel` relative to max(|ref|, floor), or where only one
 * is defined. Returns the offending indices (empty when they agree) and how many were compared.
 */
export function disagreements(
  ours: Float64Array,
  ref: Float64Array,
  rel: number,
  floor: number,
): { bad: string[]; compared: number; maxRel: number } {
  const bad: string[] = [];
  let compared = 0;
  let maxRel = 0;
  for (let i = 0; i < ours.length; i++) {
    const a = ours[i]!;
    const e = ref[i]!;
    if (Number.isNaN(a) !== Number.isNaN(e)) {
      bad.push(`#${i}: ours ${a}, reference ${e}`);
      continue;
    }
    if (Number.isNaN(a)) continue;
    compared++;
    const err = Math.abs(a - e) / Math.max(Math.abs(e), floor);
    maxRel = Math.max(maxRel, err);
    if (!(err <= rel)) bad.push(`#${i}: ours ${a}, reference ${e}`);
  }
  return { bad, compared, maxRel };
}

/** Every registered kernel by function name (`kernels.sma`), for tests that call one directly. */
export const KERNELS: Readonly<Record<string, Kernel>> = Object.fromEntries(
  [...FUNCTIONS.values()].map((f) => [f.name, f.kernel]),
);

/** Relative agreement asked of kernels against a reference library. */
export const REL = 1e-9;
/** Lengths the reference comparisons sweep. */
export const LENGTHS = [1, 2, 5, 9, 14, 20, 50, 200];
/** Absolute floor for relative errors: values that are differences of prices (MACD, change) hover near 0. */
export const floorOf = (bars: Bars): number => bars.scale * 1e-3;
export const values = (xs: Float64Array): number[] => Array.from(xs);
export const f64 = (xs: readonly number[]): Float64Array => Float64Array.from(xs);
export const list = (xs: Float64Array): number[] => Array.from(xs);

/** `ours` agrees with `ref` at every bar (both defined at the same bars) to REL relative. */
export function expectAgreement(ours: Float64Array, ref: Float64Array, floor: number): void {
  const { bad, compared } = disagreements(ours, ref, REL, floor);
  expect(bad.slice(0, 5)).toEqual([]);
  expect(compared).toBeGreaterThan(0);
  expect(firstDefined(ours)).toBe(firstDefined(ref));
}

/**
 * Random valid constants for a module's `length` and `number` parameters: lengths from 1 to the
 * parameter's `max` (at most `cap`), numbers from its `samples` or a spread of multipliers.
 */
export function arbitraryConsts(fn: FunctionModule, cap = 30): fc.Arbitrary<number[]> {
  const parts = fn.params.flatMap((p): fc.Arbitrary<number>[] => {
    if (p.kind === "length") return [fc.integer({ min: 1, max: Math.min(p.max ?? cap, cap) })];
    if (p.kind === "number") return [fc.constantFrom(...(p.samples ?? [0.5, 1, 2, 2.5, -1.5]))];
    return [];
  });
  return fc.tuple(...parts);
}

/** Random bars with a positive range and volume: a seeded walk of `length` bars at `scale`. */
export interface RandomBars {
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  /** Hourly bar open times, ms. */
  readonly time: Float64Array;
}

export function randomBars(seed: number, length: number, scale: number): RandomBars {
  const rand = prng(seed);
  const open = new Float64Array(length);
  const high = new Float64Array(length);
  const low = new Float64Array(length);
  const close = new Float64Array(length);
  const volume = new Float64Array(length);
  const time = new Float64Array(length);
  let level = scale;
  for (let i = 0; i < length; i++) {
    const prev = level;
    level *= Math.exp(0.02 * gaussian(rand));
    open[i] = prev;
    close[i] = level;
    high[i] = Math.max(prev, level) * (1 + 0.001 + Math.abs(gaussian(rand)) * 0.01);
    low[i] = Math.min(prev, level) * (1 - 0.001 - Math.abs(gaussian(rand)) * 0.01);
    volume[i] = 1 + Math.floor(rand() * 1000);
    time[i] = 1_767_225_600_000 + i * 3_600_000;
  }
  return { open, high, low, close, volume, time };
}

export const arbitraryBars = (minLength = 1, maxLength = 160): fc.Arbitrary<RandomBars> =>
  fc
    .tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: minLength, max: maxLength }), fc.constantFrom(0.01, 1, 100, 50_000))
    .map(([seed, length, scale]) => randomBars(seed, length, scale));

/**
 * The kernel inputs of a call on `bars`: each series parameter gets `series(position)`, each
 * condition parameter `condition(position)` (1/0), then the implicit columns.
 */
export function kernelInputs(
  fn: FunctionModule,
  bars: RandomBars,
  series: (position: number) => Float64Array,
  condition: (position: number) => Float64Array,
): Float64Array[] {
  const args = fn.params.flatMap((p, j): Float64Array[] =>
    p.kind === "series" ? [series(j)] : p.kind === "condition" ? [condition(j)] : [],
  );
  return [...args, ...fn.implicit.map((c) => bars[c])];
}
