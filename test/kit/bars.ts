/**
 * Bars for the kernel and module tests: seeded price walks with the shapes that break indicator
 * implementations (a flat stretch → RSI's zero average loss and σ = 0; one-bar spikes → running
 * sums that drift), hand-made columns, and random bars for properties. Every set has the six
 * columns a module may read, `time` hourly from a Monday. Prices stay positive and away from
 * 0, because technicalindicators' SD stops updating when a window's mean is exactly 0.
 */
import fc from "fast-check";
import { gaussian, prng } from "./random.js";
import { HOUR, MONDAY } from "./time.js";

/** The columns a kernel may read: OHLCV and the bar open time (ms). */
export interface Columns {
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
}

/** A named walk with its typical price level, the natural absolute scale for differences such as MACD. */
export interface Walk extends Columns {
  readonly name: string;
  readonly scale: number;
}

export interface PriceWalkOptions {
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
  /** Seed of the volume column (integers from 1 to 100,000). */
  readonly volumeSeed: number;
  /** Bars [z, z + 10) trade no volume (empty money flow). */
  readonly zeroVolumeFrom?: number;
}

const hourly = (n: number): Float64Array => Float64Array.from({ length: n }, (_, i) => MONDAY + i * HOUR);

/** A log-normal walk (300 bars by default) with consistent OHLC, a volume column and hourly times. */
export function priceWalk(o: PriceWalkOptions): Walk {
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
  const volumes = prng(o.volumeSeed);
  const z = o.zeroVolumeFrom ?? -1;
  const volume = Float64Array.from({ length: n }, (_, i) => (z >= 0 && i >= z && i < z + 10 ? 0 : Math.floor(1 + volumes() * 1e5)));
  return { name: o.name, scale: o.start, time: hourly(n), open, high, low, close, volume };
}

/**
 * The shared fixture: four 300-bar walks at very different price levels, each with a flat
 * stretch, spikes, and no volume on bars 20..29.
 */
export const BARS: readonly Walk[] = [
  priceWalk({ name: "walk@100", seed: 1, start: 100, vol: 0.02, flat: [120, 150], spikes: [[60, 1.4], [200, 0.6]], volumeSeed: 100, zeroVolumeFrom: 20 }),
  priceWalk({ name: "large@50000", seed: 2, start: 50_000, vol: 0.01, flat: [40, 75], spikes: [[100, 1.25], [250, 0.8]], volumeSeed: 101, zeroVolumeFrom: 20 }),
  priceWalk({ name: "penny@0.5", seed: 3, start: 0.5, vol: 0.05, flat: [200, 230], spikes: [[30, 3], [150, 0.4]], volumeSeed: 102, zeroVolumeFrom: 20 }),
  priceWalk({ name: "trend@20", seed: 4, start: 20, vol: 0.015, drift: 0.004, flat: [260, 280], spikes: [[90, 1.5]], volumeSeed: 103, zeroVolumeFrom: 20 }),
];

/** Walks without flat stretches or zero volume: every denominator is non-zero, every value defined. */
export const PLAIN: readonly Walk[] = [
  priceWalk({ name: "plain@100", seed: 21, start: 100, vol: 0.02, volumeSeed: 31 }),
  priceWalk({ name: "plain@0.01", seed: 22, start: 0.01, vol: 0.04, volumeSeed: 32 }),
  priceWalk({ name: "plain@30000", seed: 23, start: 30_000, vol: 0.01, volumeSeed: 33 }),
];

/** Absolute floor for relative errors of a walk: values that are differences of prices (MACD, change) hover near 0. */
export const floorOf = (bars: Walk): number => bars.scale * 1e-3;

/** Columns from plain arrays (hand-made cases): OHLC default to close (close to high), volume to 1, time hourly. */
export function columns(c: Partial<Record<keyof Columns, readonly number[]>>): Columns {
  const close = Float64Array.from(c.close ?? c.high ?? []);
  const of = (xs: readonly number[] | undefined, fallback: Float64Array): Float64Array => (xs ? Float64Array.from(xs) : fallback);
  return {
    time: of(c.time, hourly(close.length)),
    open: of(c.open, close),
    high: of(c.high, close),
    low: of(c.low, close),
    close,
    volume: of(c.volume, new Float64Array(close.length).fill(1)),
  };
}

/** A flat market: every bar at one price, high = low = close, volume 1000. */
export function flatBars(length: number, price = 42): Columns {
  return columns({ close: Array.from({ length }, () => price), volume: Array.from({ length }, () => 1000) });
}

/** A copy of `x` with NaN at the given bars (a missing bar or an undefined input). */
export function withNaN(x: Float64Array, at: readonly number[]): Float64Array {
  const y = Float64Array.from(x);
  for (const i of at) y[i] = NaN;
  return y;
}

/** Columns with NaN in every price and volume column at the given bars (time stays). */
export function columnsWithNaN(b: Columns, at: readonly number[]): Columns {
  const hole = (x: Float64Array): Float64Array => withNaN(x, at);
  return { time: b.time, open: hole(b.open), high: hole(b.high), low: hole(b.low), close: hole(b.close), volume: hole(b.volume) };
}

/** Random bars with a positive range and volume: a seeded walk of `length` hourly bars at `scale`. */
export function randomBars(seed: number, length: number, scale: number): Columns {
  const rand = prng(seed);
  const open = new Float64Array(length);
  const high = new Float64Array(length);
  const low = new Float64Array(length);
  const close = new Float64Array(length);
  const volume = new Float64Array(length);
  let level = scale;
  for (let i = 0; i < length; i++) {
    const prev = level;
    level *= Math.exp(0.02 * gaussian(rand));
    open[i] = prev;
    close[i] = level;
    high[i] = Math.max(prev, level) * (1 + 0.001 + Math.abs(gaussian(rand)) * 0.01);
    low[i] = Math.min(prev, level) * (1 - 0.001 - Math.abs(gaussian(rand)) * 0.01);
    volume[i] = 1 + Math.floor(rand() * 1000);
  }
  const time = Float64Array.from({ length }, (_, i) => 1_767_225_600_000 + i * HOUR);
  return { time, open, high, low, close, volume };
}

/** fast-check: {@link randomBars} of `minLength`..`maxLength` bars at one of four price levels. */
export const arbitraryBars = (minLength = 1, maxLength = 160): fc.Arbitrary<Columns> =>
  fc
    .tuple(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: minLength, max: maxLength }), fc.constantFrom(0.01, 1, 100, 50_000))
    .map(([seed, length, scale]) => randomBars(seed, length, scale));
