/**
 * Candlestick-pattern and event benchmark (not a test). Run: `npx tsx bench/patterns.ts`
 * (or `npm run bench:patterns`).
 *
 * One screen that uses four candlestick patterns (hammer, bullish_engulfing, morning_star,
 * shooting_star) and two event functions (count, bars_since) over 10,000 synthetic CRYPTO
 * instruments × 300 h1 bars, three ways, interleaved run by run:
 *   1. XQL over the bars as the store hands them (`fetchUniverse` marks them checked): the
 *      query compiled once, `run` many times;
 *   2. XQL over the same bars injected by a caller, checked on every run (a pass over every
 *      bar time), for reference;
 *   3. hand-written loops over the same Float64Arrays computing the same booleans at the last
 *      bar: TA-Lib's candle-setting averages summed inline, the count and bars_since windows
 *      looped directly, short-circuiting like the query.
 * All must select the same symbols (exit 1 if not). Prints the load average, medians (ms)
 * after warm-up and the ratios to the hand loops, the floor (target ≤ 1.5× for the store's bars).
 *
 * Options (environment): BENCH_RUNS (default 9), BENCH_WARMUP (default 2), BENCH_SYMBOLS
 * (default 10000).
 */
import { compile } from "../src/api.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import type { Instrument } from "../src/types.js";
import { asStoreBars, loadAverage, median } from "./common.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 10_000);

const CONDITION =
  "(hammer or bullish_engulfing or morning_star) and count(close < open, 10) >= 4 or shooting_star and bars_since(close >= highest(high, 20), 10) <= 3";
const QUERY = `market = "CRYPTO"
timeframe = h1
${CONDITION}`;

// ---- 1. XQL --------------------------------------------------------------------------------

const compiled = compile(QUERY);
const viaXql = (universe: Instrument[]): string[] => compiled.run(universe).results.map((r) => r.symbol);

// ---- 2. hand-written loops -----------------------------------------------------------------

/** Mean of |close − open| over bars [j − 10, j − 1]. */
function avgBody(o: Float64Array, c: Float64Array, j: number): number {
  let s = 0;
  for (let k = j - 10; k < j; k++) s += Math.abs(c[k]! - o[k]!);
  return s / 10;
}

/** Mean of high − low over bars [j − p, j − 1]. */
function avgRange(h: Float64Array, l: Float64Array, j: number, p: number): number {
  let s = 0;
  for (let k = j - p; k < j; k++) s += h[k]! - l[k]!;
  return s / p;
}

function viaLoops(universe: Instrument[]): string[] {
  const out: string[] = [];
  for (const inst of universe) {
    const b = inst.bars.h1!;
    const o = b.open as Float64Array;
    const h = b.high as Float64Array;
    const l = b.low as Float64Array;
    const c = b.close as Float64Array;
    const i = c.length - 1;
    if (i < 28) continue; // the query's lookback: bars_since(highest(high, 20), 10) needs L = 29 bars

    const body = Math.abs(c[i]! - o[i]!);
    const top = Math.max(o[i]!, c[i]!);
    const bottom = Math.min(o[i]!, c[i]!);
    const upper = h[i]! - top;
    const lower = bottom - l[i]!;

    const hammer =
      body < avgBody(o, c, i) &&
      lower > body &&
      upper < 0.1 * avgRange(h, l, i, 10) &&
      bottom <= l[i - 1]! + 0.2 * avgRange(h, l, i - 1, 5);
    const engulfing =
      c[i]! >= o[i]! &&
      c[i - 1]! < o[i - 1]! &&
      ((c[i]! >= o[i - 1]! && o[i]! < c[i - 1]!) || (c[i]! > o[i - 1]! && o[i]! <= c[i - 1]!));
    let morning = false;
    if (!hammer && !engulfing) {
      const b2 = Math.abs(c[i - 2]! - o[i - 2]!);
      const b1 = Math.abs(c[i - 1]! - o[i - 1]!);
      morning =
        b2 > avgBody(o, c, i - 2) &&
        c[i - 2]! < o[i - 2]! &&
        b1 <= avgBody(o, c, i - 1) &&
        Math.max(o[i - 1]!, c[i - 1]!) < Math.min(o[i - 2]!, c[i - 2]!) &&
        body > avgBody(o, c, i) &&
        c[i]! >= o[i]! &&
        c[i]! > c[i - 2]! + b2 * 0.3;
    }
    if (hammer || engulfing || morning) {
      let downs = 0;
      for (let k = i - 9; k <= i; k++) if (c[k]! < o[k]!) downs++;
      if (downs >= 4) {
        out.push(inst.symbol);
        continue;
      }
    }
    const shooting =
      body < avgBody(o, c, i) &&
      upper > body &&
      lower < 0.1 * avgRange(h, l, i, 10) &&
      bottom > Math.max(o[i - 1]!, c[i - 1]!);
    if (!shooting) continue;
    for (let k = 0; k <= 3; k++) {
      const j = i - k;
      let hh = -Infinity;
      for (let m = j - 19; m <= j; m++) if (h[m]! > hh) hh = h[m]!;
      if (c[j]! >= hh) {
        out.push(inst.symbol);
        break;
      }
    }
  }
  return out.sort();
}

// ---- timing --------------------------------------------------------------------------------

const t0 = performance.now();
const universe = syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: 300, seed: 1 });
const tUniverse = performance.now() - t0;
const storeBars = asStoreBars(universe);

const ways = [
  { name: "XQL, the store's bars (compiled once)", fn: () => viaXql(storeBars) },
  { name: "XQL, the same bars injected (checked every run)", fn: () => viaXql(universe) },
  { name: "hand-written loops", fn: () => viaLoops(universe) },
];
const xqlAnswer = viaXql(storeBars);
const loopAnswer = viaLoops(universe);
const same =
  xqlAnswer.length === loopAnswer.length && xqlAnswer.every((s, k) => s === loopAnswer[k]) && viaXql(universe).join() === xqlAnswer.join();

for (let w = 0; w < WARMUP; w++) for (const way of ways) way.fn();
const times: number[][] = ways.map(() => []);
for (let r = 0; r < RUNS; r++) {
  ways.forEach((way, k) => {
    const start = performance.now();
    way.fn();
    times[k]!.push(performance.now() - start);
  });
}
const med = times.map(median);

console.log(`Pattern bench: ${SYMBOLS} CRYPTO instruments × 300 h1 bars (syntheticUniverse seed 1, built in ${tUniverse.toFixed(0)} ms)`);
console.log(`Node ${process.version}; ${RUNS} timed runs per way after ${WARMUP} warm-up runs, interleaved; ${loadAverage()}\n`);
console.log(`query:\n${QUERY}\n`);
console.log(`${xqlAnswer.length} instruments match; hand loops select ${same ? "the same" : "DIFFERENT"} symbols`);
console.log("\n| way | median ms | min ms | max ms |");
console.log("|---|---:|---:|---:|");
ways.forEach((w, k) => {
  const t = times[k]!;
  console.log(`| ${w.name} | ${med[k]!.toFixed(1)} | ${Math.min(...t).toFixed(1)} | ${Math.max(...t).toFixed(1)} |`);
});
console.log(`\nXQL / hand loops: ${(med[0]! / med[2]!).toFixed(2)}× over the store's bars (target ≤ 1.5×), ${(med[1]! / med[2]!).toFixed(2)}× over injected bars`);
console.log(`floor: the hand loops, ${((1000 * med[2]!) / SYMBOLS).toFixed(2)} µs per instrument; XQL ${((1000 * med[0]!) / SYMBOLS).toFixed(2)} µs`);
console.log(`after: ${loadAverage()}`);
if (!same) {
  console.log(`XQL only: ${xqlAnswer.filter((s) => !loopAnswer.includes(s)).slice(0, 10).join(", ")}`);
  console.log(`loops only: ${loopAnswer.filter((s) => !xqlAnswer.includes(s)).slice(0, 10).join(", ")}`);
  process.exit(1);
}
