/**
 * Evaluation benchmark (not a test). Run: `npx tsx bench/evaluate.ts` (or `npm run bench:evaluate`;
 * add `--expose-gc` after `tsx` for heap figures taken after a collection).
 *
 * One screen over 10,000 synthetic CRYPTO instruments × 300 h1 bars, three ways, side by side
 * in one process, interleaved run by run so background load hits all three alike:
 *   1. XQL: the query compiled once, `run` many times over the bars as the store hands them
 *      (`fetchUniverse` marks them checked; a last row runs the same bars injected by a caller,
 *      checked on every run);
 *   2. technicalindicators: RSI and EMA over each full series (they are recursive), SMA and
 *      Highest over only the last n values, evaluated lazily as a careful user would;
 *   3. hand-written loops over the same Float64Arrays: Wilder RSI and EMA 9/21 over the full
 *      series, sma(200), avg(volume, 20) and highest(high, 52) at the last bars only.
 * All three must select the same symbols, and the same 20 rows in the same order (up to the
 * 2-decimal rounding of technicalindicators' RSI). A fourth row shows technicalindicators written
 * eagerly (every indicator over the whole series), for reference. Prints medians (ms) after
 * warm-up, the ratios, and memory figures; exits 1 if the answers differ.
 *
 * Options (environment): BENCH_RUNS (timed runs per way, default 9), BENCH_WARMUP (default 2),
 * BENCH_SYMBOLS (default 10000).
 */
import * as ti from "technicalindicators";
import { compile } from "../src/api.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import type { Instrument } from "../src/types.js";
import { asStoreBars, loadAverage, median } from "./common.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 10_000);

const CONDITION =
  "rsi(14) < 30 and volume > avg(volume, 20) * 2 or crossover(ema(close, 9), ema(close, 21)) or close >= highest(high, 52) and close > sma(200)";
const QUERY = `market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14), volume]
sort = rsi(14) asc
limit = 20
${CONDITION}`;

interface Row {
  symbol: string;
  rsi: number;
}

/** What each way answers: the 20 rows the query returns, and every matching symbol. */
interface Answer {
  top: Row[];
  matched: string[];
}

/** The query's sort and limit: rsi ascending, ties by symbol, NaN last; the first 20. */
function sortAndLimit(rows: Row[]): Answer {
  const matched = rows.map((r) => r.symbol);
  rows.sort((a, b) => {
    const an = a.rsi !== a.rsi;
    const bn = b.rsi !== b.rsi;
    if (an || bn) return an && bn ? (a.symbol < b.symbol ? -1 : 1) : an ? 1 : -1;
    return a.rsi - b.rsi || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0);
  });
  return { top: rows.slice(0, 20), matched };
}

// ---- 1. XQL --------------------------------------------------------------------------------

const compiled = compile(QUERY);
function viaXql(universe: Instrument[]): Answer {
  const top = compiled.run(universe).results.map((r) => ({ symbol: r.symbol, rsi: r.columns["rsi(14)"] ?? NaN }));
  return { top, matched: [] }; // the matched set is checked once, outside the timing, without the limit
}
const unlimited = compile(QUERY.replace("limit = 20\n", ""));

// ---- 2. technicalindicators ------------------------------------------------------------------

function last<T>(xs: T[]): T {
  return xs[xs.length - 1]!;
}

function viaTechnicalIndicators(universe: Instrument[]): Answer {
  const rows: Row[] = [];
  for (const inst of universe) {
    const b = inst.bars.h1!;
    const n = b.close.length;
    if (n < 200) continue; // the query's minLookback (sma(200) needs 200 bars)
    const close = Array.from(b.close);
    const rsiSeries = ti.RSI.calculate({ values: close, period: 14 });
    const rsi = last(rsiSeries);
    const c = close[n - 1]!;
    let match = false;
    if (rsi < 30) {
      const volume = Array.from((b.volume as Float64Array).subarray(n - 20));
      match = b.volume[n - 1]! > last(ti.SMA.calculate({ values: volume, period: 20 })) * 2;
    }
    if (!match) {
      const e9 = ti.EMA.calculate({ values: close, period: 9 });
      const e21 = ti.EMA.calculate({ values: close, period: 21 });
      match = e9[e9.length - 1]! > e21[e21.length - 1]! && e9[e9.length - 2]! <= e21[e21.length - 2]!;
    }
    if (!match) {
      const high = Array.from((b.high as Float64Array).subarray(n - 52));
      if (c >= last(ti.Highest.calculate({ values: high, period: 52 }))) {
        match = c > last(ti.SMA.calculate({ values: close.slice(n - 200), period: 200 }));
      }
    }
    if (match) rows.push({ symbol: inst.symbol, rsi });
  }
  return sortAndLimit(rows);
}

/**
 * technicalindicators as often written: every indicator over the whole series, no short-circuit
 * (shown for reference; the comparison above is the careful version).
 */
function viaTechnicalIndicatorsEager(universe: Instrument[]): Answer {
  const rows: Row[] = [];
  for (const inst of universe) {
    const b = inst.bars.h1!;
    const n = b.close.length;
    if (n < 200) continue;
    const close = Array.from(b.close);
    const volume = Array.from(b.volume);
    const high = Array.from(b.high);
    const rsi = last(ti.RSI.calculate({ values: close, period: 14 }));
    const avgVolume = last(ti.SMA.calculate({ values: volume, period: 20 }));
    const e9 = ti.EMA.calculate({ values: close, period: 9 });
    const e21 = ti.EMA.calculate({ values: close, period: 21 });
    const hh = last(ti.Highest.calculate({ values: high, period: 52 }));
    const sma200 = last(ti.SMA.calculate({ values: close, period: 200 }));
    const c = close[n - 1]!;
    const cross = e9[e9.length - 1]! > e21[e21.length - 1]! && e9[e9.length - 2]! <= e21[e21.length - 2]!;
    if ((rsi < 30 && volume[n - 1]! > avgVolume * 2) || cross || (c >= hh && c > sma200)) rows.push({ symbol: inst.symbol, rsi });
  }
  return sortAndLimit(rows);
}

// ---- 3. hand-written loops -------------------------------------------------------------------

/** Wilder RSI at the last bar: mean of the first 14 gains/losses, then RMA. */
function rsiLast(x: Float64Array, n: number): number {
  let g = 0;
  let l = 0;
  for (let j = 1; j <= n; j++) {
    const d = x[j]! - x[j - 1]!;
    if (d > 0) g += d;
    else l -= d;
  }
  g /= n;
  l /= n;
  const keep = (n - 1) / n;
  const inv = 1 / n;
  for (let i = n + 1; i < x.length; i++) {
    const d = x[i]! - x[i - 1]!;
    g = g * keep + (d > 0 ? d : 0) * inv;
    l = l * keep + (d < 0 ? -d : 0) * inv;
  }
  return l === 0 ? 100 : 100 - 100 / (1 + g / l);
}

/** EMA (SMA seed) at the last two bars, into out[0] (previous) and out[1] (latest). */
function emaLastTwo(x: Float64Array, n: number, out: Float64Array): void {
  let e = 0;
  for (let j = 0; j < n; j++) e += x[j]!;
  e /= n;
  const a = 2 / (n + 1);
  let prev = e;
  for (let i = n; i < x.length; i++) {
    prev = e;
    e += a * (x[i]! - e);
  }
  out[0] = prev;
  out[1] = e;
}

function meanLast(x: Float64Array, n: number): number {
  let s = 0;
  for (let i = x.length - n; i < x.length; i++) s += x[i]!;
  return s / n;
}

function maxLast(x: Float64Array, n: number): number {
  let m = -Infinity;
  for (let i = x.length - n; i < x.length; i++) if (x[i]! > m) m = x[i]!;
  return m;
}

const e9 = new Float64Array(2);
const e21 = new Float64Array(2);
function viaHandLoops(universe: Instrument[]): Answer {
  const rows: Row[] = [];
  for (const inst of universe) {
    const b = inst.bars.h1!;
    const close = b.close as Float64Array;
    const n = close.length;
    if (n < 200) continue;
    const rsi = rsiLast(close, 14);
    const c = close[n - 1]!;
    let match = false;
    if (rsi < 30) {
      const volume = b.volume as Float64Array;
      match = volume[n - 1]! > meanLast(volume, 20) * 2;
    }
    if (!match) {
      emaLastTwo(close, 9, e9);
      emaLastTwo(close, 21, e21);
      match = e9[1]! > e21[1]! && e9[0]! <= e21[0]!;
    }
    if (!match) match = c >= maxLast(b.high as Float64Array, 52) && c > meanLast(close, 200);
    if (match) rows.push({ symbol: inst.symbol, rsi });
  }
  return sortAndLimit(rows);
}

// ---- measuring --------------------------------------------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

const memStart = process.memoryUsage();
const t0 = performance.now();
const universe = syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: 300, seed: 1 });
const tUniverse = performance.now() - t0;
const storeBars = asStoreBars(universe);
gc?.();
const memUniverse = process.memoryUsage();

const ways = [
  { name: "XQL compiled run, the store's bars", fn: () => viaXql(storeBars) },
  { name: "technicalindicators (careful)", fn: viaTechnicalIndicators },
  { name: "hand-written loops", fn: viaHandLoops },
  { name: "technicalindicators (eager)", fn: viaTechnicalIndicatorsEager },
  { name: "XQL compiled run, the same bars injected (checked every run)", fn: viaXql },
] as const;

// Same answers first: the same matching set, and the same 20 rows in the same order. Rows of
// technicalindicators are compared after rounding XQL's RSI to 2 decimals, as it rounds its RSI
// output, so rows whose RSI ties after rounding may legitimately change places.
const answers = ways.map((w) => w.fn(universe));
const xqlMatched = unlimited.run(universe).results.map((r) => r.symbol);
const sameSet = (a: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...xqlMatched].sort());
const names = (rows: Row[]) => rows.map((r) => r.symbol).join(" ");
const xqlTop = answers[0]!.top;
const xqlTopRounded = sortAndLimit(xqlTop.map((r) => ({ symbol: r.symbol, rsi: Math.round(r.rsi * 100) / 100 }))).top;
const checks = [
  ["XQL over injected bars: the same 20 rows as over the store's", JSON.stringify(answers[4]!.top) === JSON.stringify(xqlTop)],
  ["hand-written loops: same matching set", sameSet(answers[2]!.matched)],
  ["hand-written loops: same 20 rows, same order", names(answers[2]!.top) === names(xqlTop)],
  ["technicalindicators (careful, eager): same matching set", sameSet(answers[1]!.matched) && sameSet(answers[3]!.matched)],
  ["technicalindicators: same 20 rows", JSON.stringify(answers[1]!.top.map((r) => r.symbol).sort()) === JSON.stringify(xqlTop.map((r) => r.symbol).sort())],
  ["technicalindicators: same order given its 2-decimal RSI", names(answers[1]!.top) === names(xqlTopRounded) && names(answers[3]!.top) === names(xqlTopRounded)],
  ["technicalindicators: identical order", names(answers[1]!.top) === names(xqlTop)],
] as const;

for (let i = 0; i < WARMUP; i++) for (const w of ways) w.fn(universe);

const times: number[][] = ways.map(() => []);
const heapGrowth: number[][] = ways.map(() => []);
for (let r = 0; r < RUNS; r++) {
  for (let k = 0; k < ways.length; k++) {
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const start = performance.now();
    ways[k]!.fn(universe);
    times[k]!.push(performance.now() - start);
    heapGrowth[k]!.push(process.memoryUsage().heapUsed - heapBefore);
  }
}
const memEnd = process.memoryUsage();

const med = times.map(median);
console.log(`Evaluation bench: ${SYMBOLS} CRYPTO instruments × 300 h1 bars (syntheticUniverse seed 1, built in ${tUniverse.toFixed(0)} ms)`);
console.log(`Node ${process.version}; ${RUNS} timed runs per way after ${WARMUP} warm-up runs, interleaved; ${loadAverage()}\n`);
console.log(`query:\n${QUERY}\n`);
console.log(`${xqlMatched.length} instruments match before the limit; top 20: ${names(xqlTop)}`);
for (const [what, ok] of checks) console.log(`  ${ok ? "yes" : "NO "}  ${what}`);
if (!checks.slice(0, 6).every(([, ok]) => ok)) {
  ways.forEach((w, k) => console.log(`  ${w.name}: ${names(answers[k]!.top)}`));
  process.exitCode = 1;
}
console.log("\n| way | median ms | min ms | max ms | heap allocated per run |");
console.log("|---|---:|---:|---:|---:|");
ways.forEach((w, k) => {
  const t = times[k]!;
  console.log(`| ${w.name} | ${med[k]!.toFixed(1)} | ${Math.min(...t).toFixed(1)} | ${Math.max(...t).toFixed(1)} | ${mb(median(heapGrowth[k]!))}${gc ? "" : " (no --expose-gc: includes garbage)"} |`);
});
console.log(`\nXQL / hand loops: ${(med[0]! / med[2]!).toFixed(2)}× over the store's bars (target ≤ 1.0×), ${(med[4]! / med[2]!).toFixed(2)}× over injected bars`);
console.log(`technicalindicators (careful) / XQL: ${(med[1]! / med[0]!).toFixed(1)}× (target ≥ 60×); eager: ${(med[3]! / med[0]!).toFixed(1)}×`);
console.log(
  `\nmemory: rss ${mb(memStart.rss)} at start, ${mb(memUniverse.rss)} with the universe (heap ${mb(memUniverse.heapUsed)}, typed arrays ${mb(memUniverse.arrayBuffers)}), ${mb(memEnd.rss)} at the end; peak rss ${mb(process.resourceUsage().maxRSS * 1024)}`,
);

// ==== Screen 2: ten of the v2 functions ======================================================
//
// A trend-and-pullback screen over the same universe using stoch_k, adx, cci, mfi, obv, vwap,
// supertrend, kama, hma and bb_percent, beside hand-written loops that compute the same values
// at the last bar only (recursive ones, adx, supertrend's ATR and kama, over the whole series).
// Both must select the same symbols and the same 20 rows in the same order.

const QUERY2 = `market = "CRYPTO"
timeframe = h1
columns = [close, adx(14), mfi(14)]
sort = adx(14) desc
limit = 20
adx(14) > 20 and close > supertrend(10, 3) and kama(10) > hma(20) and (stoch_k(14, 3) < 40 or cci(20) < -50 or mfi(14) < 40) and (obv > obv[10] or close > vwap or bb_percent(20, 2) < 0.2)`;

interface AdxRow {
  symbol: string;
  adx: number;
}

/** The second query's sort and limit: adx descending, ties by symbol; the first 20. */
function byAdx(rows: AdxRow[]): { top: AdxRow[]; matched: string[] } {
  const matched = rows.map((r) => r.symbol);
  rows.sort((a, b) => b.adx - a.adx || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  return { top: rows.slice(0, 20), matched };
}

const compiled2 = compile(QUERY2);
const unlimited2 = compile(QUERY2.replace("limit = 20\n", ""));
function viaXql2(universe: Instrument[]): { top: AdxRow[]; matched: string[] } {
  const top = compiled2.run(universe).results.map((r) => ({ symbol: r.symbol, adx: r.columns["adx(14)"] ?? NaN }));
  return { top, matched: [] };
}

/** Wilder's true range. */
function trueRange(h: number, l: number, pc: number): number {
  return Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc));
}

/** ADX(n) at the last bar: Wilder's running sums of ±DM and TR, DX, its mean then RMA. */
function adxLast(high: Float64Array, low: Float64Array, close: Float64Array, n: number): number {
  let sp = 0;
  let sm = 0;
  let st = 0;
  let adx = 0;
  let seed = 0;
  for (let i = 1; i < close.length; i++) {
    const up = high[i]! - high[i - 1]!;
    const down = low[i - 1]! - low[i]!;
    const pdm = up > down && up > 0 ? up : 0;
    const mdm = down > up && down > 0 ? down : 0;
    const tr = trueRange(high[i]!, low[i]!, close[i - 1]!);
    if (i < n) {
      sp += pdm;
      sm += mdm;
      st += tr;
      continue;
    }
    sp = sp - sp / n + pdm;
    sm = sm - sm / n + mdm;
    st = st - st / n + tr;
    const pdi = (100 * sp) / st;
    const mdi = (100 * sm) / st;
    const dx = (100 * Math.abs(mdi - pdi)) / (mdi + pdi);
    if (i < 2 * n - 1) seed += dx;
    else if (i === 2 * n - 1) adx = (seed + dx) / n;
    else adx = (adx * (n - 1) + dx) / n;
  }
  return adx;
}

/** SuperTrend(n, mult) at the last bar: Wilder ATR bands around hl2, ratcheted, flipping on a close through. */
function supertrendLast(high: Float64Array, low: Float64Array, close: Float64Array, n: number, mult: number): number {
  let atr = 0;
  for (let j = 1; j <= n; j++) atr += trueRange(high[j]!, low[j]!, close[j - 1]!);
  atr /= n;
  let upperBefore = 0;
  let lowerBefore = 0;
  let lineBefore = NaN;
  for (let i = n; i < close.length; i++) {
    if (i > n) atr += (trueRange(high[i]!, low[i]!, close[i - 1]!) - atr) / n;
    const mid = (high[i]! + low[i]!) / 2;
    let upper = mid + mult * atr;
    let lower = mid - mult * atr;
    const cb = close[i - 1]!;
    if (!(lower > lowerBefore || cb < lowerBefore)) lower = lowerBefore;
    if (!(upper < upperBefore || cb > upperBefore)) upper = upperBefore;
    const up = i === n ? false : lineBefore === upperBefore ? close[i]! > upper : !(close[i]! < lower);
    lineBefore = up ? lower : upper;
    upperBefore = upper;
    lowerBefore = lower;
  }
  return lineBefore;
}

/** KAMA(n) at the last bar (fast 2, slow 30), seeded with the value one bar before the first. */
function kamaLast(x: Float64Array, n: number): number {
  const fast = 2 / 3;
  const slow = 2 / 31;
  let kama = x[n - 1]!;
  for (let i = n; i < x.length; i++) {
    let noise = 0;
    for (let j = i - n + 1; j <= i; j++) noise += Math.abs(x[j]! - x[j - 1]!);
    const er = noise === 0 ? 1 : Math.abs(x[i]! - x[i - n]!) / noise;
    const sc = (er * (fast - slow) + slow) ** 2;
    kama += sc * (x[i]! - kama);
  }
  return kama;
}

/** Linearly weighted mean of the n values ending at i (weight n on i). */
function wmaAt(x: ArrayLike<number>, i: number, n: number): number {
  let s = 0;
  for (let j = 0; j < n; j++) s += (n - j) * x[i - j]!;
  return s / ((n * (n + 1)) / 2);
}

const hullInner = new Float64Array(16);
/** HMA(n) at the last bar: wma(2·wma(⌊n/2⌋) − wma(n), ⌊√n⌋). */
function hmaLast(x: Float64Array, n: number): number {
  const m = Math.floor(Math.sqrt(n));
  const last = x.length - 1;
  for (let k = 0; k < m; k++) {
    const i = last - (m - 1) + k;
    hullInner[k] = 2 * wmaAt(x, i, Math.max(1, Math.floor(n / 2))) - wmaAt(x, i, n);
  }
  return wmaAt(hullInner, m - 1, m);
}

/** Slow %K(k, smooth) at the last bar: the mean of the last `smooth` raw stochastics. */
function stochKLast(high: Float64Array, low: Float64Array, close: Float64Array, k: number, smooth: number): number {
  let sum = 0;
  for (let i = close.length - smooth; i < close.length; i++) {
    let hh = -Infinity;
    let ll = Infinity;
    for (let j = i - k + 1; j <= i; j++) {
      if (high[j]! > hh) hh = high[j]!;
      if (low[j]! < ll) ll = low[j]!;
    }
    sum += (100 * (close[i]! - ll)) / (hh - ll);
  }
  return sum / smooth;
}

const typical = new Float64Array(64);
/** CCI(n) at the last bar. */
function cciLast(high: Float64Array, low: Float64Array, close: Float64Array, n: number): number {
  const first = close.length - n;
  let sum = 0;
  for (let j = 0; j < n; j++) sum += typical[j] = (high[first + j]! + low[first + j]! + close[first + j]!) / 3;
  const mean = sum / n;
  let dev = 0;
  for (let j = 0; j < n; j++) dev += Math.abs(typical[j]! - mean);
  return (typical[n - 1]! - mean) / (0.015 * (dev / n));
}

/** MFI(n) at the last bar: positive and negative money flow by the sign of the hlc3 change. */
function mfiLast(high: Float64Array, low: Float64Array, close: Float64Array, volume: Float64Array, n: number): number {
  const last = close.length - 1;
  let pos = 0;
  let neg = 0;
  let before = (high[last - n]! + low[last - n]! + close[last - n]!) / 3;
  for (let i = last - n + 1; i <= last; i++) {
    const tp = (high[i]! + low[i]! + close[i]!) / 3;
    if (tp > before) pos += tp * volume[i]!;
    else if (tp < before) neg += tp * volume[i]!;
    before = tp;
  }
  return (100 * pos) / (pos + neg);
}

/** obv − obv[k]: the volume of the last k bars, signed by the direction of each close. */
function obvChange(close: Float64Array, volume: Float64Array, k: number): number {
  let s = 0;
  for (let i = close.length - k; i < close.length; i++) s += close[i]! > close[i - 1]! ? volume[i]! : close[i]! < close[i - 1]! ? -volume[i]! : 0;
  return s;
}

/** Session VWAP at the last bar: Σ(hlc3·volume)/Σvolume since 00:00 UTC of the last bar's day. */
function vwapLast(time: ArrayLike<number>, high: Float64Array, low: Float64Array, close: Float64Array, volume: Float64Array): number {
  const last = close.length - 1;
  const day = Math.floor(time[last]! / 86_400_000);
  let pv = 0;
  let v = 0;
  for (let i = last; i >= 0 && Math.floor(time[i]! / 86_400_000) === day; i--) {
    pv += ((high[i]! + low[i]! + close[i]!) / 3) * volume[i]!;
    v += volume[i]!;
  }
  return pv / v;
}

/** Bollinger %b(n, k) at the last bar, σ the population deviation (two passes). */
function bbPercentLast(x: Float64Array, n: number, k: number): number {
  const mean = meanLast(x, n);
  let ss = 0;
  for (let i = x.length - n; i < x.length; i++) ss += (x[i]! - mean) ** 2;
  const sd = Math.sqrt(ss / n);
  return (x[x.length - 1]! - (mean - k * sd)) / (2 * k * sd);
}

function viaHandLoops2(universe: Instrument[]): { top: AdxRow[]; matched: string[] } {
  const rows: AdxRow[] = [];
  for (const inst of universe) {
    const b = inst.bars.h1!;
    const close = b.close as Float64Array;
    const high = b.high as Float64Array;
    const low = b.low as Float64Array;
    const volume = b.volume as Float64Array;
    if (close.length < 28) continue; // the query's minLookback: adx(14) needs 28 bars
    const c = close[close.length - 1]!;
    const adx = adxLast(high, low, close, 14);
    if (!(adx > 20)) continue;
    if (!(c > supertrendLast(high, low, close, 10, 3))) continue;
    if (!(kamaLast(close, 10) > hmaLast(close, 20))) continue;
    if (!(stochKLast(high, low, close, 14, 3) < 40 || cciLast(high, low, close, 20) < -50 || mfiLast(high, low, close, volume, 14) < 40)) continue;
    if (!(obvChange(close, volume, 10) > 0 || c > vwapLast(b.time, high, low, close, volume) || bbPercentLast(close, 20, 2) < 0.2)) continue;
    rows.push({ symbol: inst.symbol, adx });
  }
  return byAdx(rows);
}

const ways2 = [
  { name: "XQL compiled run, the store's bars", fn: () => viaXql2(storeBars) },
  { name: "hand-written loops", fn: viaHandLoops2 },
  { name: "XQL compiled run, the same bars injected (checked every run)", fn: viaXql2 },
] as const;
const answers2 = ways2.map((w) => w.fn(universe));
const xqlMatched2 = unlimited2.run(universe).results.map((r) => r.symbol);
const names2 = (rows: AdxRow[]) => rows.map((r) => r.symbol).join(" ");
const checks2 = [
  ["hand-written loops: same matching set", JSON.stringify([...answers2[1]!.matched].sort()) === JSON.stringify([...xqlMatched2].sort())],
  ["hand-written loops: same 20 rows, same order", names2(answers2[1]!.top) === names2(answers2[0]!.top)],
  [
    "hand-written loops: same adx(14) column to 1e-9",
    answers2[1]!.top.every((r, i) => Math.abs(r.adx - answers2[0]!.top[i]!.adx) <= 1e-9 * Math.abs(r.adx)),
  ],
] as const;
for (let i = 0; i < WARMUP; i++) for (const w of ways2) w.fn(universe);
const times2: number[][] = ways2.map(() => []);
for (let r = 0; r < RUNS; r++) {
  for (let k = 0; k < ways2.length; k++) {
    gc?.();
    const start = performance.now();
    ways2[k]!.fn(universe);
    times2[k]!.push(performance.now() - start);
  }
}
const med2 = times2.map(median);
console.log(`\n---- Screen 2: ten v2 functions (same universe) ----\n\nquery:\n${QUERY2}\n`);
console.log(`${xqlMatched2.length} instruments match before the limit; top 20: ${names2(answers2[0]!.top)}`);
for (const [what, ok] of checks2) console.log(`  ${ok ? "yes" : "NO "}  ${what}`);
if (!checks2.every(([, ok]) => ok)) {
  ways2.forEach((w, k) => console.log(`  ${w.name}: ${names2(answers2[k]!.top)}`));
  process.exitCode = 1;
}
console.log("\n| way | median ms | min ms | max ms |");
console.log("|---|---:|---:|---:|");
ways2.forEach((w, k) => {
  const t = times2[k]!;
  console.log(`| ${w.name} | ${med2[k]!.toFixed(1)} | ${Math.min(...t).toFixed(1)} | ${Math.max(...t).toFixed(1)} |`);
});
console.log(`\nXQL / hand loops (screen 2): ${(med2[0]! / med2[1]!).toFixed(2)}× over the store's bars (target ≤ 1.5×), ${(med2[2]! / med2[1]!).toFixed(2)}× over injected bars`);
console.log(`floor: the hand loops, ${((1000 * med[2]!) / SYMBOLS).toFixed(2)} µs (screen 1) and ${((1000 * med2[1]!) / SYMBOLS).toFixed(2)} µs (screen 2) per instrument`);
console.log(`after: ${loadAverage()}`);
