/**
 * Shared pieces of the tests of the averages, trend, volatility and volume built-ins: bars with
 * volume and a time column, a module's kernel run the way the evaluator feeds it (series
 * arguments, then implicit columns), naive window helpers for the definitions written out in
 * the tests, the contract properties every module keeps, and a call through `compile().run`.
 */
import { expect } from "vitest";
import { compile } from "../../../src/api.js";
import { standaloneContext, type FunctionModule } from "../../../src/functions/module.js";
import type { Timeframe } from "../../../src/types.js";
import { TIMEFRAME_MS } from "../../../src/types.js";
import { FIXTURES, firstDefined, prng, walk, type Bars } from "../series.js";

export interface Columns {
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
}

/** Monday 2024-01-01 00:00 UTC: hourly bars from here start a UTC day and a week. */
export const MONDAY = Date.UTC(2024, 0, 1);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

function withVolume(b: Bars, seed: number, zeroFrom = -1): Columns {
  const rand = prng(seed);
  const n = b.close.length;
  const volume = new Float64Array(n);
  for (let i = 0; i < n; i++) volume[i] = zeroFrom >= 0 && i >= zeroFrom && i < zeroFrom + 10 ? 0 : Math.floor(1 + rand() * 1e5);
  const time = Float64Array.from({ length: n }, (_, i) => MONDAY + i * HOUR);
  return { time, open: b.open, high: b.high, low: b.low, close: b.close, volume };
}

/** The shared fixture walks (flat stretches, spikes, four price levels), volume 0 on bars 20..29. */
export const BARS: readonly Columns[] = FIXTURES.map((b, k) => withVolume(b, 100 + k, 20));

/** Walks without flat stretches or zero volume: every denominator is non-zero. */
export const PLAIN: readonly Columns[] = [
  withVolume(walk({ name: "plain@100", seed: 21, start: 100, vol: 0.02 }), 31),
  withVolume(walk({ name: "plain@0.01", seed: 22, start: 0.01, vol: 0.04 }), 32),
  withVolume(walk({ name: "plain@30000", seed: 23, start: 30_000, vol: 0.01 }), 33),
];

/** Columns from plain arrays (hand-made cases): OHLC default to close, volume to 1, time hourly. */
export function columns(c: Partial<Record<keyof Columns, readonly number[]>>): Columns {
  const close = Float64Array.from(c.close ?? []);
  const of = (xs: readonly number[] | undefined, fallback: Float64Array): Float64Array => (xs ? Float64Array.from(xs) : fallback);
  return {
    time: of(c.time, Float64Array.from({ length: close.length }, (_, i) => MONDAY + i * HOUR)),
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

/** Columns with NaN in every price and volume column at the given bars (time stays). */
export function columnsWithNaN(b: Columns, at: readonly number[]): Columns {
  const hole = (x: Float64Array): Float64Array => {
    const y = Float64Array.from(x);
    for (const i of at) y[i] = NaN;
    return y;
  };
  return { time: b.time, open: hole(b.open), high: hole(b.high), low: hole(b.low), close: hole(b.close), volume: hole(b.volume) };
}

/** The kernel inputs of a call: series arguments (given, or their defaults), then implicit columns. */
export function inputsOf(m: FunctionModule, bars: Columns, args: readonly Float64Array[] = []): Float64Array[] {
  const inputs: Float64Array[] = [];
  let k = 0;
  for (const p of m.params) {
    if (p.kind !== "series") continue;
    const given = args[k++];
    if (given) inputs.push(given);
    else if (p.default) inputs.push(bars[p.default]);
    else throw new Error(`${m.name}: argument '${p.name}' has no default; pass it`);
  }
  for (const col of m.implicit) inputs.push(bars[col]);
  return inputs;
}

/** Runs a module over every bar in one call. */
export function evaluate(m: FunctionModule, inputs: readonly Float64Array[], consts: readonly number[], timeframeMs = HOUR): Float64Array {
  const out = new Float64Array(inputs[0]!.length);
  m.kernel(inputs, consts, out, 0, out.length, standaloneContext(timeframeMs));
  return out;
}

/** Within `rel` relative to max(|expected|, floor) at every bar, NaN exactly where expected is. */
export function expectClose(actual: Float64Array, expected: ArrayLike<number>, what: string, rel = 1e-9, floor = 1e-300): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Number.isNaN(e)) expect(a, `${what} #${i} should be undefined`).toBeNaN();
    else expect(Math.abs(a - e) / Math.max(Math.abs(e), floor), `${what} #${i}: ${a} vs ${e}`).toBeLessThanOrEqual(rel);
  }
}

/** `f(i)` for i ≥ first, NaN before. */
export function series(length: number, first: number, f: (i: number) => number): Float64Array {
  const out = new Float64Array(length).fill(NaN);
  for (let i = Math.max(0, first); i < length; i++) out[i] = f(i);
  return out;
}

export function windowMax(x: ArrayLike<number>, i: number, n: number): number {
  let m = -Infinity;
  for (let j = i - n + 1; j <= i; j++) m = Math.max(m, x[j]!);
  return m;
}
export function windowMin(x: ArrayLike<number>, i: number, n: number): number {
  let m = Infinity;
  for (let j = i - n + 1; j <= i; j++) m = Math.min(m, x[j]!);
  return m;
}
export function windowSum(x: ArrayLike<number>, i: number, n: number): number {
  let s = 0;
  for (let j = i - n + 1; j <= i; j++) s += x[j]!;
  return s;
}
export function windowMean(x: ArrayLike<number>, i: number, n: number): number {
  return windowSum(x, i, n) / n;
}
/** Population standard deviation, two-pass, written plainly; exactly 0 on a window of one value. */
export function windowSigma(x: ArrayLike<number>, i: number, n: number): number {
  if (windowMax(x, i, n) === windowMin(x, i, n)) return 0;
  const m = windowMean(x, i, n);
  let s = 0;
  for (let j = i - n + 1; j <= i; j++) s += (x[j]! - m) ** 2;
  return Math.sqrt(s / n);
}
/** Linearly weighted mean (weights 1..n, newest heaviest), NaN before bar n − 1. */
export function wmaOf(x: ArrayLike<number>, n: number): Float64Array {
  return series(x.length, n - 1, (i) => {
    let s = 0;
    for (let k = 0; k < n; k++) s += (n - k) * x[i - k]!;
    return s / ((n * (n + 1)) / 2);
  });
}
/** EMA seeded with the mean of its first n defined inputs (TA-Lib's), NaN before. */
export function emaOf(x: ArrayLike<number>, n: number): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  let f = 0;
  while (f < x.length && Number.isNaN(x[f]!)) f++;
  if (f + n - 1 >= x.length) return out;
  let e = 0;
  for (let j = f; j < f + n; j++) e += x[j]!;
  e /= n;
  out[f + n - 1] = e;
  for (let i = f + n; i < x.length; i++) out[i] = e = e + (2 / (n + 1)) * (x[i]! - e);
  return out;
}
/** True range from bar 1 and Wilder's ATR (mean of the first n TRs at bar n, then RMA). */
export function trOf(c: Columns): Float64Array {
  return series(c.close.length, 1, (i) =>
    Math.max(c.high[i]! - c.low[i]!, Math.abs(c.high[i]! - c.close[i - 1]!), Math.abs(c.low[i]! - c.close[i - 1]!)),
  );
}
export function atrOf(c: Columns, n: number): Float64Array {
  const tr = trOf(c);
  const out = new Float64Array(tr.length).fill(NaN);
  if (n >= tr.length) return out;
  let a = 0;
  for (let j = 1; j <= n; j++) a += tr[j]!;
  a /= n;
  out[n] = a;
  for (let i = n + 1; i < tr.length; i++) out[i] = a = (a * (n - 1) + tr[i]!) / n;
  return out;
}

/**
 * The contract properties of one call: undefined before L − 1; with `defined`, defined from
 * L − 1 on at every bar; evaluation in pieces gives the same values bit for bit; a windowed
 * kernel gives the same values with every input bar before `from − extraLookback` poisoned.
 */
export function checkContract(
  m: FunctionModule,
  inputs: readonly Float64Array[],
  consts: readonly number[],
  options: { defined?: boolean; timeframeMs?: number } = {},
): Float64Array {
  const tf = options.timeframeMs ?? HOUR;
  const whole = evaluate(m, inputs, consts, tf);
  const L = 1 + m.extraLookback(consts);
  const label = `${m.name}(${consts.join(", ")})`;
  for (let i = 0; i < Math.min(L - 1, whole.length); i++) expect(whole[i], `${label} #${i} before L − 1`).toBeNaN();
  if (options.defined ?? true) {
    expect(firstDefined(whole), `${label}: first defined bar`).toBe(L - 1);
    for (let i = L - 1; i < whole.length; i++) expect(whole[i], `${label} #${i}`).not.toBeNaN();
  }
  const ctx = standaloneContext(tf);
  const pieces = new Float64Array(whole.length).fill(-12345);
  for (const [a, b] of [[0, 1], [1, 7], [7, 8], [8, 61], [61, 62], [62, 200], [200, whole.length]] as const) {
    m.kernel(inputs, consts, pieces, a, Math.min(b, whole.length), ctx);
  }
  for (let i = 0; i < whole.length; i++) expect(Object.is(pieces[i], whole[i]), `${label} in pieces #${i}`).toBe(true);
  if (!m.recursive) {
    const extra = m.extraLookback(consts);
    for (const from of [L + 3, 150, whole.length - 5]) {
      const poisoned = inputs.map((x) => {
        const y = Float64Array.from(x);
        y.fill(NaN, 0, Math.max(0, from - extra));
        return y;
      });
      const out = new Float64Array(whole.length);
      m.kernel(poisoned, consts, out, from, whole.length, standaloneContext(tf));
      for (let i = from; i < whole.length; i++) expect(Object.is(out[i], whole[i]), `${label} from ${from} #${i}`).toBe(true);
    }
  }
  return whole;
}

/**
 * The value of `expression` at the latest bar of one instrument through the public API
 * (`compile(query).run`), or null when it is undefined there.
 */
export function latestThroughRun(expression: string, bars: Columns, timeframe: Timeframe = "h1"): number | null {
  expect(bars.time[1]! - bars.time[0]!).toBe(TIMEFRAME_MS[timeframe]);
  const query = `market = "CRYPTO"\ntimeframe = ${timeframe}\ncolumns = [${expression}]\ntrue`;
  const { results } = compile(query).run([{ symbol: "X", bars: { [timeframe]: bars } }]);
  expect(results.length).toBe(1);
  return results[0]!.columns[expression] as number | null;
}

/** The least-squares line through the window, solved from the normal equations in exact rationals. */
export function leastSquaresExact(x: ArrayLike<number>, i: number, n: number): { value: number; slope: number } {
  // Scaled by a power of two to integers below 2^60, exactly (prices in a window are within 2^8
  // of each other), so the BigInt sums are exact and only the final divisions round.
  const ys = Array.from({ length: n }, (_, t) => x[i - n + 1 + t]!);
  const scale = 2 ** (60 - Math.ceil(Math.log2(Math.max(...ys.map(Math.abs), 1e-300))));
  const Y = ys.map((y) => BigInt(Math.round(y * scale)));
  const N = BigInt(n);
  let sy = 0n;
  let sty = 0n;
  Y.forEach((y, t) => {
    sy += y;
    sty += BigInt(t) * y;
  });
  const st = (N * (N - 1n)) / 2n;
  const stt = ((N - 1n) * N * (2n * N - 1n)) / 6n;
  const den = N * stt - st * st;
  if (den === 0n) return { value: ys[0]!, slope: 0 };
  const slopeNum = N * sty - st * sy; // slope = slopeNum / den (scaled)
  // value at t = n − 1: (sy − slope·st)/n + slope·(n − 1) = (sy·den + slopeNum·(n·(n − 1) − st))/(n·den)
  const valueNum = sy * den + slopeNum * (N * (N - 1n) - st);
  const slope = Number(slopeNum) / Number(den) / scale;
  const value = Number(valueNum) / Number(N * den) / scale;
  return { value, slope };
}
