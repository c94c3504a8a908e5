/**
 * Indicator definitions written out plainly from their sources, for the expected values of the
 * tests: every window summed directly (O(n) per bar, on purpose), every recursive average
 * restarted from its seed. They share no code with src/, so a mistake in a kernel shows as a
 * mismatch rather than agreeing with itself.
 */
import type { Columns } from "./bars.js";

/**
 * Sum of x[a..b] with Neumaier's compensation: as good as exactly rounded for these windows, so
 * a mean of equal values is that value and the last bit never decides a comparison.
 */
export function sumOf(x: ArrayLike<number>, a: number, b: number): number {
  let s = 0;
  let c = 0;
  for (let j = a; j <= b; j++) {
    const v = x[j]!;
    const t = s + v;
    c += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s;
    s = t;
  }
  return s + c;
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
/** The window's sum added left to right, as TA-Lib's SUM and a plain loop add it (see {@link sumOf} for the compensated one). */
export function windowSum(x: ArrayLike<number>, i: number, n: number): number {
  let s = 0;
  for (let j = i - n + 1; j <= i; j++) s += x[j]!;
  return s;
}
export function windowMean(x: ArrayLike<number>, i: number, n: number): number {
  return windowSum(x, i, n) / n;
}
/** Population standard deviation, two-pass around the compensated mean; exactly 0 on a window of one value (as it is mathematically). */
export function windowSigma(x: ArrayLike<number>, i: number, n: number): number {
  if (windowMax(x, i, n) === windowMin(x, i, n)) return 0;
  const m = sumOf(x, i - n + 1, i) / n;
  let s = 0;
  for (let j = i - n + 1; j <= i; j++) s += (x[j]! - m) ** 2;
  return Math.sqrt(s / n);
}

/** Simple moving average with the compensated sum (a mean of equal values is that value), NaN before bar n − 1. */
export function smaOf(x: ArrayLike<number>, n: number): Float64Array {
  return series(x.length, n - 1, (i) => sumOf(x, i - n + 1, i) / n);
}
/** Population σ over n bars, NaN before bar n − 1. */
export function stdevOf(x: ArrayLike<number>, n: number): Float64Array {
  return series(x.length, n - 1, (i) => windowSigma(x, i, n));
}
/** Linearly weighted mean (weights 1..n, newest heaviest), NaN before bar n − 1. */
export function wmaOf(x: ArrayLike<number>, n: number): Float64Array {
  return series(x.length, n - 1, (i) => {
    let s = 0;
    for (let k = 0; k < n; k++) s += (n - k) * x[i - k]!;
    return s / ((n * (n + 1)) / 2);
  });
}
/** EMA seeded with the mean of its first n defined inputs (TA-Lib's), NaN before; the textbook update, exact on a constant input. */
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
/** Wilder RSI: the mean of the first n gains and losses, then RMA with alpha 1/n; 100 when the average loss is 0. */
export function rsiOf(x: ArrayLike<number>, n: number): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  let f = 0;
  while (f < x.length && Number.isNaN(x[f]!)) f++;
  if (f + n >= x.length) return out;
  let g = 0;
  let l = 0;
  for (let j = f + 1; j <= f + n; j++) {
    const d = x[j]! - x[j - 1]!;
    if (d > 0) g += d;
    else l -= d;
  }
  g /= n;
  l /= n;
  const value = (): number => (l === 0 ? 100 : 100 - 100 / (1 + g / l));
  out[f + n] = value();
  for (let i = f + n + 1; i < x.length; i++) {
    const d = x[i]! - x[i - 1]!;
    g = (g * (n - 1) + Math.max(d, 0)) / n;
    l = (l * (n - 1) + Math.max(-d, 0)) / n;
    out[i] = value();
  }
  return out;
}
/** True range from bar 1. */
export function trOf(c: Pick<Columns, "high" | "low" | "close">): Float64Array {
  return series(c.close.length, 1, (i) =>
    Math.max(c.high[i]! - c.low[i]!, Math.abs(c.high[i]! - c.close[i - 1]!), Math.abs(c.low[i]! - c.close[i - 1]!)),
  );
}
/** Wilder's ATR: the mean of the first n true ranges at bar n, then RMA. */
export function atrOf(c: Pick<Columns, "high" | "low" | "close">, n: number): Float64Array {
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
 * Wilder's directional movement system written out from the book's procedure, one array per
 * line: +DM/−DM/TR per bar, the running sums (first n − 1 bars added up, then S − S/n + x),
 * DI, DX, and ADX as the mean of the first n DX then (adx·(n − 1) + dx)/n.
 */
export function wilder(c: Pick<Columns, "high" | "low" | "close">, n: number): { plus: number[]; minus: number[]; dx: number[]; adx: number[] } {
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

/** Pine's reference script of ta.supertrend, bar by bar over arrays, with Wilder's ATR (atr(n)). */
export function supertrendOf(c: Pick<Columns, "high" | "low" | "close">, n: number, factor: number): Float64Array {
  const atr = atrOf(c, n);
  const len = c.close.length;
  const out = new Float64Array(len).fill(NaN);
  const upperBand = new Float64Array(len).fill(NaN);
  const lowerBand = new Float64Array(len).fill(NaN);
  const nz = (v: number): number => (Number.isNaN(v) ? 0 : v);
  for (let i = 1; i < len; i++) {
    if (Number.isNaN(atr[i]!)) continue;
    const src = (c.high[i]! + c.low[i]!) / 2;
    let upper = src + factor * atr[i]!;
    let lower = src - factor * atr[i]!;
    const prevLower = nz(lowerBand[i - 1]!);
    const prevUpper = nz(upperBand[i - 1]!);
    lower = lower > prevLower || c.close[i - 1]! < prevLower ? lower : prevLower;
    upper = upper < prevUpper || c.close[i - 1]! > prevUpper ? upper : prevUpper;
    let direction: number;
    if (Number.isNaN(atr[i - 1]!)) direction = 1;
    else if (out[i - 1] === prevUpper) direction = c.close[i]! > upper ? -1 : 1;
    else direction = c.close[i]! < lower ? 1 : -1;
    upperBand[i] = upper;
    lowerBand[i] = lower;
    out[i] = direction === -1 ? lower : upper;
  }
  return out;
}
