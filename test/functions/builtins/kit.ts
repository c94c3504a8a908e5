/**
 * Shared checks for the built-in module tests: bars with volume, running a module's kernel the
 * way the evaluator feeds it (series arguments, then implicit columns), and the contract
 * properties every module must keep (first defined bar = L − 1, evaluation in pieces equals
 * one pass, a windowed kernel reads nothing before `from − extraLookback`).
 */
import { expect } from "vitest";
import { FIXTURES, firstDefined, prng, walk, type Bars } from "../series.js";
import { standaloneContext, type FunctionModule } from "../../../src/functions/module.js";
import type { RawSeries } from "../../../src/types.js";

export type Columns = Record<RawSeries, Float64Array>;

/** The shared walks with a volume column (zero on a stretch, to exercise empty money flow). */
export const BARS: readonly Columns[] = FIXTURES.map((b, k) => withVolume(b, 100 + k));

export function withVolume(b: Bars, seed: number): Columns {
  const rand = prng(seed);
  const volume = new Float64Array(b.close.length);
  for (let i = 0; i < volume.length; i++) volume[i] = i >= 20 && i < 30 ? 0 : Math.floor(1 + rand() * 1e5);
  return { open: b.open, high: b.high, low: b.low, close: b.close, volume };
}

/** Columns from plain arrays (hand-made cases); missing OHLC default to close, volume to 1. */
export function columns(c: Partial<Record<RawSeries, readonly number[]>>): Columns {
  const close = Float64Array.from(c.close ?? c.high ?? []);
  const of = (xs: readonly number[] | undefined, fallback: Float64Array): Float64Array => (xs ? Float64Array.from(xs) : fallback);
  return {
    open: of(c.open, close),
    high: of(c.high, close),
    low: of(c.low, close),
    close,
    volume: of(c.volume, new Float64Array(close.length).fill(1)),
  };
}

/** The kernel inputs for a call whose series arguments are left to their defaults (or given). */
export function inputsOf(m: FunctionModule, bars: Columns, args: readonly Float64Array[] = []): Float64Array[] {
  const inputs: Float64Array[] = [];
  let k = 0;
  for (const p of m.params) {
    if (p.kind !== "series" && p.kind !== "condition") continue;
    const given = args[k++];
    if (given) inputs.push(given);
    else if (p.default) inputs.push(bars[p.default]);
    else throw new Error(`${m.name}: argument '${p.name}' has no default; pass it`);
  }
  for (const col of m.implicit) {
    if (col === "time") throw new Error("no time column in these tests");
    inputs.push(bars[col]);
  }
  return inputs;
}

/** Runs a module over every bar in one call. */
export function evaluate(m: FunctionModule, inputs: readonly Float64Array[], consts: readonly number[]): Float64Array {
  const out = new Float64Array(inputs[0]!.length);
  m.kernel(inputs, consts, out, 0, out.length, standaloneContext());
  return out;
}

/** L of a call whose series inputs are raw columns (L = 1 each). */
export function lookbackOf(m: FunctionModule, consts: readonly number[]): number {
  return 1 + m.extraLookback(consts);
}

/** Same values, NaN where NaN (Object.is would separate 0 and −0, which JSON does not). */
export function expectSame(actual: Float64Array, expected: ArrayLike<number>, what: string): void {
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Number.isNaN(e)) expect(a, `${what} #${i}`).toBeNaN();
    else expect(a, `${what} #${i}`).toBe(e);
  }
}

/** Within `rel` relative to max(|expected|, floor) at every bar, NaN exactly where expected is. */
export function expectClose(actual: Float64Array, expected: ArrayLike<number>, what: string, rel = 1e-9, floor = 1): number {
  let compared = 0;
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Number.isNaN(e)) {
      expect(a, `${what} #${i} should be undefined`).toBeNaN();
      continue;
    }
    compared++;
    expect(Math.abs(a - e) / Math.max(Math.abs(e), floor), `${what} #${i}: ${a} vs ${e}`).toBeLessThanOrEqual(rel);
  }
  return compared;
}

/**
 * The contract properties of one call on the given bars: with all inputs defined, the first
 * defined bar is L − 1 and every later bar is defined (unless `gaps` allows undefined values,
 * e.g. zero denominators on a flat stretch); evaluating in pieces (as the evaluator does for
 * offsets) gives the same values bit for bit; a windowed kernel gives the same values when
 * every input bar before `from − extraLookback` is poisoned with NaN.
 */
export function checkContract(
  m: FunctionModule,
  inputs: readonly Float64Array[],
  consts: readonly number[],
  options: { gaps?: boolean; sparse?: boolean } = {},
): Float64Array {
  const whole = evaluate(m, inputs, consts);
  const L = lookbackOf(m, consts);
  const label = `${m.name}(${consts.join(", ")})`;
  if (m.result === "number") {
    // `sparse`: the value is defined only where the data says so (bars_since of an event).
    if (!options.sparse) expect(firstDefined(whole), `${label}: first defined bar`).toBe(L - 1);
    for (let i = 0; i < L - 1; i++) expect(whole[i], `${label} #${i} before L − 1`).toBeNaN();
    if (!options.gaps && !options.sparse) for (let i = L - 1; i < whole.length; i++) expect(whole[i], `${label} #${i}`).not.toBeNaN();
  } else {
    for (const v of whole) expect(v === 0 || v === 1, `${label}: booleans are 1 or 0`).toBe(true);
  }

  const ctx = standaloneContext();
  const pieces = new Float64Array(whole.length).fill(-12345);
  for (const [a, b] of [[0, 1], [1, 7], [7, 8], [8, 61], [61, 62], [62, 200], [200, whole.length]] as const) {
    m.kernel(inputs, consts, pieces, a, Math.min(b, whole.length), ctx);
  }
  expectSame(pieces, whole, `${label} in pieces`);

  if (!m.recursive) {
    const extra = m.extraLookback(consts);
    for (const from of [L + 3, 150, whole.length - 5]) {
      const poisoned = inputs.map((x) => {
        const y = Float64Array.from(x);
        y.fill(NaN, 0, Math.max(0, from - extra));
        return y;
      });
      const out = new Float64Array(whole.length).fill(-12345);
      m.kernel(poisoned, consts, out, from, whole.length, standaloneContext());
      expectSame(out.subarray(from), whole.subarray(from), `${label} from ${from} reads nothing before ${from - extra}`);
    }
  }
  return whole;
}

/** A copy of `x` with NaN at the given bars (a missing bar or an undefined input). */
export function withNaN(x: Float64Array, at: readonly number[]): Float64Array {
  const y = Float64Array.from(x);
  for (const i of at) y[i] = NaN;
  return y;
}

/** Columns with NaN in every column at the given bars. */
export function columnsWithNaN(bars: Columns, at: readonly number[]): Columns {
  return {
    open: withNaN(bars.open, at),
    high: withNaN(bars.high, at),
    low: withNaN(bars.low, at),
    close: withNaN(bars.close, at),
    volume: withNaN(bars.volume, at),
  };
}

/** A flat series: every bar at one price, high = low = close. */
export function flatBars(length: number, price = 42): Columns {
  return columns({ close: Array.from({ length }, () => price), volume: Array.from({ length }, () => 1000) });
}

/** Random walks without flat stretches: every denominator is non-zero, every value defined. */
export const PLAIN: readonly Columns[] = [
  withVolume(walk({ name: "plain@100", seed: 11, start: 100, vol: 0.02 }), 7),
  withVolume(walk({ name: "plain@0.01", seed: 12, start: 0.01, vol: 0.04 }), 8),
].map((c) => ({ ...c, volume: c.volume.map((v) => v + 1) }));

/** Naive window helpers for the reference definitions in the tests (O(n) per bar, on purpose). */
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
export function windowMean(x: ArrayLike<number>, i: number, n: number): number {
  let s = 0;
  for (let j = i - n + 1; j <= i; j++) s += x[j]!;
  return s / n;
}
/** `f(i)` for i ≥ first, NaN before. */
export function series(length: number, first: number, f: (i: number) => number): Float64Array {
  const out = new Float64Array(length).fill(NaN);
  for (let i = Math.max(0, first); i < length; i++) out[i] = f(i);
  return out;
}

/**
 * Wilder's directional movement system written out from the book's procedure, one array per
 * line: +DM/−DM/TR per bar, the running sums (first n − 1 bars added up, then S − S/n + x),
 * DI, DX, and ADX as the mean of the first n DX then (adx·(n − 1) + dx)/n.
 */
export function wilder(c: Columns, n: number): { plus: number[]; minus: number[]; dx: number[]; adx: number[] } {
  const len = c.close.length;
  const plus = new Array<number>(len).fill(NaN);
  const minus = new Array<number>(len).fill(NaN);
  const dxs = new Array<number>(len).fill(NaN);
  const adxs = new Array<number>(len).fill(NaN);
  let sP = 0;
  let sM = 0;
  let sT = 0;
  for (let i = 1; i < len; i++) {
    const up = c.high[i]! - c.high[i - 1]!;
    const down = c.low[i - 1]! - c.low[i]!;
    const pdm = up > down && up > 0 ? up : 0;
    const mdm = down > up && down > 0 ? down : 0;
    const pc = c.close[i - 1]!;
    const tr = Math.max(c.high[i]! - c.low[i]!, Math.abs(c.high[i]! - pc), Math.abs(c.low[i]! - pc));
    if (i < n) {
      sP += pdm;
      sM += mdm;
      sT += tr;
      continue;
    }
    sP = sP - sP / n + pdm;
    sM = sM - sM / n + mdm;
    sT = sT - sT / n + tr;
    plus[i] = sT === 0 ? NaN : (100 * sP) / sT;
    minus[i] = sT === 0 ? NaN : (100 * sM) / sT;
    dxs[i] = (100 * Math.abs(plus[i]! - minus[i]!)) / (plus[i]! + minus[i]!);
  }
  let sum = 0;
  for (let i = n; i < len; i++) {
    const d = Number.isNaN(dxs[i]!) ? 0 : dxs[i]!;
    if (i < 2 * n - 1) sum += d;
    else if (i === 2 * n - 1) adxs[i] = (sum + d) / n;
    else adxs[i] = Number.isNaN(dxs[i]!) ? adxs[i - 1]! : (adxs[i - 1]! * (n - 1) + d) / n;
  }
  return { plus, minus, dx: dxs, adx: adxs };
}


/** Bars since the extreme of the n + 1 bars ending at i, the latest bar winning ties (Aroon). */
export function ageOfExtreme(x: ArrayLike<number>, i: number, n: number, highs: boolean): number {
  let best = i - n;
  for (let j = i - n; j <= i; j++) if (highs ? x[j]! >= x[best]! : x[j]! <= x[best]!) best = j;
  return i - best;
}

/** A random 1/0 condition series, true with probability p. */
export function prngBools(seed: number, length: number, p: number): Float64Array {
  const rand = prng(seed);
  return Float64Array.from({ length }, () => (rand() < p ? 1 : 0));
}
