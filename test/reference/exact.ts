/**
 * Exact values for the bars where TA-Lib's floating-point shortcuts are wrong (decisions §1
 * "Functions v2": the exact value wins). Variance-type sums are done in rational arithmetic
 * (every double is a fraction with a power-of-two denominator, so BigInt fractions hold them
 * exactly); zero-denominator rules (TA-Lib writes 0 where XQL's value is undefined) are
 * decided on the exact inputs.
 *
 * Each rule returns the exact value at bar i (a number), `null` where the exact value is
 * undefined (a zero denominator), or `undefined` where it has nothing to say (then XQL must
 * agree with TA-Lib).
 */

export interface FixtureBars {
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
}

export type Params = Record<string, number | string>;

/** A rational number num/den with den > 0. */
interface Frac {
  n: bigint;
  d: bigint;
}

/** The exact value of a double as a fraction (denominator a power of two). */
export function frac(x: number): Frac {
  if (!Number.isFinite(x)) throw new Error(`not finite: ${x}`);
  let e = 0;
  while (!Number.isInteger(x)) {
    x *= 2;
    e++;
  }
  return { n: BigInt(x), d: 1n << BigInt(e) };
}

function add(a: Frac, b: Frac): Frac {
  return norm({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
}
function sub(a: Frac, b: Frac): Frac {
  return norm({ n: a.n * b.d - b.n * a.d, d: a.d * b.d });
}
function mul(a: Frac, b: Frac): Frac {
  return norm({ n: a.n * b.n, d: a.d * b.d });
}
function div(a: Frac, b: Frac): Frac {
  if (b.n === 0n) throw new Error("division by zero");
  const s = b.n < 0n ? -1n : 1n;
  return norm({ n: a.n * b.d * s, d: a.d * b.n * s });
}
const int = (k: number): Frac => ({ n: BigInt(k), d: 1n });

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
function norm(x: Frac): Frac {
  const g = gcd(x.n, x.d);
  return g > 1n ? { n: x.n / g, d: x.d / g } : x;
}

const bitLength = (x: bigint): number => (x < 0n ? -x : x).toString(2).length;

/** The double nearest a fraction (to well within 1e-15 relative). */
export function toNumber(x: Frac): number {
  if (x.n === 0n) return 0;
  const k = 64 - (bitLength(x.n) - bitLength(x.d)); // scale so the quotient has ~64 bits
  const q = k >= 0 ? (x.n << BigInt(k)) / x.d : x.n / (x.d << BigInt(-k));
  let v = Number(q);
  let e = -k;
  while (e > 0) {
    const s = Math.min(e, 1000);
    v *= 2 ** s;
    e -= s;
  }
  while (e < 0) {
    const s = Math.min(-e, 1000);
    v /= 2 ** s;
    e += s;
  }
  return v;
}

/** Σx, Σx² over a window, exactly. */
function moments(xs: readonly number[]): { n: number; s1: Frac; s2: Frac } {
  let s1 = int(0);
  let s2 = int(0);
  for (const x of xs) {
    const f = frac(x);
    s1 = add(s1, f);
    s2 = add(s2, mul(f, f));
  }
  return { n: xs.length, s1, s2 };
}

/** Population variance of a window, exactly: (nΣx² − (Σx)²)/n². */
export function exactVariance(xs: readonly number[]): Frac {
  const { n, s1, s2 } = moments(xs);
  return div(sub(mul(int(n), s2), mul(s1, s1)), int(n * n));
}

function exactMean(xs: readonly number[]): Frac {
  return div(moments(xs).s1, int(xs.length));
}

const window = (col: readonly number[], i: number, n: number): number[] => col.slice(i - n + 1, i + 1);

function column(bars: FixtureBars, name: number | string | undefined): number[] {
  const c = bars[String(name) as keyof FixtureBars];
  if (!Array.isArray(c)) throw new Error(`fixture has no column ${String(name)}`);
  return c;
}

function stdev(bars: FixtureBars, p: Params, i: number): number {
  return Math.sqrt(toNumber(exactVariance(window(column(bars, p.src), i, Number(p.n)))));
}

function band(sign: 1 | -1) {
  return (bars: FixtureBars, p: Params, i: number): number => {
    const xs = window(column(bars, p.src), i, Number(p.n));
    return toNumber(exactMean(xs)) + sign * Number(p.k) * Math.sqrt(toNumber(exactVariance(xs)));
  };
}

/** Least squares over the last n values with x = 0..n−1 (oldest first): slope and value at x = n − 1. */
function regression(ys: readonly number[]): { slope: Frac; value: Frac } {
  const n = ys.length;
  let sy = int(0);
  let sxy = int(0);
  ys.forEach((y, x) => {
    const f = frac(y);
    sy = add(sy, f);
    sxy = add(sxy, mul(int(x), f));
  });
  const sx = int((n * (n - 1)) / 2);
  const sxx = int(((n - 1) * n * (2 * n - 1)) / 6);
  const slope = div(sub(mul(int(n), sxy), mul(sx, sy)), sub(mul(int(n), sxx), mul(sx, sx)));
  const intercept = div(sub(sy, mul(slope, sx)), int(n));
  return { slope, value: add(intercept, mul(slope, int(n - 1))) };
}

function correl(bars: FixtureBars, p: Params, i: number): number | null {
  const n = Number(p.n);
  const xs = window(column(bars, p.a), i, n);
  const ys = window(column(bars, p.b), i, n);
  const vx = exactVariance(xs);
  const vy = exactVariance(ys);
  if (vx.n === 0n || vy.n === 0n) return null;
  let sxy = int(0);
  for (let k = 0; k < n; k++) sxy = add(sxy, mul(frac(xs[k]!), frac(ys[k]!)));
  const cov = sub(div(sxy, int(n)), mul(exactMean(xs), exactMean(ys)));
  // cov / sqrt(vx·vy): the square root is taken of an exact product, rounded once.
  const r2 = div(mul(cov, cov), mul(vx, vy));
  return Math.sign(Number(cov.n)) * Math.sqrt(toNumber(r2));
}

/** True when highest(high, n) = lowest(low, n) at bar j (a stochastic's zero denominator). */
function flatRange(bars: FixtureBars, j: number, n: number): boolean {
  if (j - n + 1 < 0) return false;
  return Math.max(...window(bars.high, j, n)) === Math.min(...window(bars.low, j, n));
}

/** Wilder's RSI series of a column, per length, in rational arithmetic (see {@link exactRsiSeries}). */
const rsiCache = new WeakMap<readonly number[], Map<number, (Frac | undefined)[]>>();

/**
 * Wilder's RSI(n) of a column at every bar, in rational arithmetic: the averages seeded with
 * the mean of the first n changes, then avg = (avg·(n − 1) + change)/n; 100 when the average
 * loss is 0 (the contract's rule, where TA-Lib writes 0 for a flat start). Exact, so a bar
 * without change keeps the RSI exactly (both averages scale alike) and no epsilon decides
 * anything (TA-Lib writes 0 once its averages fall below 1e-14: RSI(2) after some 40 flat bars
 * of a FOREX price, and at sub-1e-12 prices). `undefined` before bar n.
 */
function exactRsiSeries(col: readonly number[], n: number): (Frac | undefined)[] {
  const byLength = rsiCache.get(col) ?? new Map<number, (Frac | undefined)[]>();
  rsiCache.set(col, byLength);
  const cached = byLength.get(n);
  if (cached) return cached;
  const out: (Frac | undefined)[] = new Array<Frac | undefined>(col.length).fill(undefined);
  const step = (k: number): [Frac, Frac] => {
    const d = sub(frac(col[k]!), frac(col[k - 1]!));
    return d.n > 0n ? [d, int(0)] : [int(0), { n: -d.n, d: d.d }];
  };
  let gain = int(0);
  let loss = int(0);
  for (let k = 1; k <= n && k < col.length; k++) {
    const [g, l] = step(k);
    gain = add(gain, g);
    loss = add(loss, l);
  }
  gain = div(gain, int(n));
  loss = div(loss, int(n));
  for (let k = n; k < col.length; k++) {
    if (k > n) {
      const [g, l] = step(k);
      gain = div(add(mul(gain, int(n - 1)), g), int(n));
      loss = div(add(mul(loss, int(n - 1)), l), int(n));
    }
    out[k] = loss.n === 0n ? int(100) : div(mul(int(100), gain), add(gain, loss));
  }
  byLength.set(n, out);
  return out;
}

/** The Stoch RSI's raw stochastic at bar j from the exact RSIs: null on a flat window of them. */
function exactStochRsi(bars: FixtureBars, p: Params, j: number): number | null | undefined {
  const k = Number(p.k);
  const rsis = exactRsiSeries(column(bars, p.src), Number(p.n)).slice(j - k + 1, j + 1);
  if (rsis.length < k || rsis.some((r) => r === undefined)) return undefined;
  const sorted = (rsis as Frac[]).slice().sort((a, b) => (a.n * b.d < b.n * a.d ? -1 : a.n * b.d > b.n * a.d ? 1 : 0));
  const range = sub(sorted[k - 1]!, sorted[0]!);
  if (range.n === 0n) return null;
  return toNumber(div(mul(int(100), sub(rsis[k - 1]!, sorted[0]!)), range));
}

/** True when no bar from 1 to i has a true range: Wilder's TR sum is 0 (a flat start). */
function noRangeSinceStart(bars: FixtureBars, i: number): boolean {
  for (let k = 1; k <= i; k++) {
    const pc = bars.close[k - 1]!;
    if (bars.high[k] !== pc || bars.low[k] !== pc) return false;
  }
  return true;
}

/** True when no bar from 1 to i has directional movement: both of Wilder's DM sums are 0. */
function noMovementSinceStart(bars: FixtureBars, i: number): boolean {
  for (let k = 1; k <= i; k++) {
    const up = bars.high[k]! - bars.high[k - 1]!;
    const down = bars.low[k - 1]! - bars.low[k]!;
    if ((up > 0 && up > down) || (down > 0 && down > up)) return false;
  }
  return true;
}

/** The mean (or sum) of a window in rational arithmetic: what a running sum drifts from after a spike. */
function exactWindow(bars: FixtureBars, p: Params, i: number, mean: boolean): number {
  const n = Number(p.n);
  const total = moments(window(column(bars, p.src), i, n)).s1;
  return toNumber(mean ? div(total, int(n)) : total);
}

const hlc3 = (bars: FixtureBars, k: number): number => (bars.high[k]! + bars.low[k]! + bars.close[k]!) / 3;

export const EXACT: Record<string, (bars: FixtureBars, p: Params, i: number) => number | null | undefined> = {
  stdev,
  bb_upper: band(1),
  bb_lower: band(-1),
  correl,
  linreg: (bars, p, i) => toNumber(regression(window(column(bars, p.src), i, Number(p.n))).value),
  linreg_slope: (bars, p, i) => toNumber(regression(window(column(bars, p.src), i, Number(p.n))).slope),
  willr: (bars, p, i) => (flatRange(bars, i, Number(p.n)) ? null : undefined),
  stoch_k: (bars, p, i) => {
    for (let j = i - Number(p.smooth) + 1; j <= i; j++) if (flatRange(bars, j, Number(p.k))) return null;
    return undefined;
  },
  stoch_d: (bars, p, i) => {
    for (let j = i - Number(p.smooth) - Number(p.d) + 2; j <= i; j++) if (flatRange(bars, j, Number(p.k))) return null;
    return undefined;
  },
  stochrsi_k: (bars, p, i) => (Number(p.smooth) === 1 ? exactStochRsi(bars, p, i) : undefined),
  stochrsi_d: (bars, p, i) => {
    if (Number(p.smooth) !== 1) return undefined;
    let sum = 0;
    const d = Number(p.d);
    for (let j = i - d + 1; j <= i; j++) {
      const raw = exactStochRsi(bars, p, j);
      if (raw === undefined || raw === null) return raw;
      sum += raw;
    }
    return sum / d;
  },
  rsi: (bars, p, i) => {
    const r = exactRsiSeries(column(bars, p.src), Number(p.n))[i];
    return r === undefined ? undefined : toNumber(r);
  },
  plus_di: (bars, _p, i) => (noRangeSinceStart(bars, i) ? null : undefined),
  minus_di: (bars, _p, i) => (noRangeSinceStart(bars, i) ? null : undefined),
  dx: (bars, _p, i) => (noRangeSinceStart(bars, i) || noMovementSinceStart(bars, i) ? null : undefined),
  sum: (bars, p, i) => exactWindow(bars, p, i, false),
  sma: (bars, p, i) => exactWindow(bars, p, i, true),
  /** TA-Lib's BOP writes 0 for a range below 1e-14 (TA_IS_ZERO_OR_NEG), a real range at sub-1e-12 prices. */
  bop: (bars, _p, i) => {
    const range = bars.high[i]! - bars.low[i]!;
    return range === 0 ? 0 : (bars.close[i]! - bars.open[i]!) / range;
  },
  cci: (bars, p, i) => {
    const n = Number(p.n);
    const xs = Array.from({ length: n }, (_, k) => hlc3(bars, i - n + 1 + k));
    return xs.every((x) => x === xs[0]) ? null : undefined;
  },
  /** MFI with the exact test for "no money flow" (TA-Lib writes 0 when the flow sum is below 1.0). */
  mfi: (bars, p, i) => {
    const n = Number(p.n);
    let pos = 0;
    let neg = 0;
    for (let k = i - n + 1; k <= i; k++) {
      const t = hlc3(bars, k);
      const prev = hlc3(bars, k - 1);
      const flow = t * bars.volume[k]!;
      if (t > prev) pos += flow;
      else if (t < prev) neg += flow;
    }
    return pos + neg === 0 ? null : (100 * pos) / (pos + neg);
  },
  /** TA-Lib's NATR with period 1 returns TRANGE itself, not 100 · TRANGE / close (ta_NATR.c). */
  natr: (bars, p, i) => {
    if (Number(p.n) !== 1 || i < 1) return undefined;
    const pc = bars.close[i - 1]!;
    const tr = Math.max(bars.high[i]!, pc) - Math.min(bars.low[i]!, pc);
    return (100 * tr) / bars.close[i]!;
  },
  ultosc: (bars, p, i) => {
    const periods = [Number(p.a), Number(p.b), Number(p.c)];
    const avg: number[] = [];
    for (const n of periods) {
      let bp = 0;
      let tr = 0;
      for (let k = i - n + 1; k <= i; k++) {
        const pc = bars.close[k - 1]!;
        const lo = Math.min(bars.low[k]!, pc);
        bp += bars.close[k]! - lo;
        tr += Math.max(bars.high[k]!, pc) - lo;
      }
      if (tr === 0) return null;
      avg.push(bp / tr);
    }
    return (100 * (4 * avg[0]! + 2 * avg[1]! + avg[2]!)) / 7;
  },
};
