/**
 * Screen-history benchmark (not a test). Run: `npm run bench:history`.
 *
 * The example screen of bench/evaluate.ts over 10,000 synthetic CRYPTO instruments of h1 bars,
 * as the store hands them (marked checked, as `fetchUniverse` marks them; the truncated views too):
 *   1. one `run` (the latest bar);
 *   2. `history` over the last 300 bars (one pass per instrument);
 *   3. separate runs at past bars, each over the universe truncated there (subarray views, so
 *      truncation itself costs nothing) — the home-made way; BENCH_SAMPLES of the 300 bars are
 *      timed and the total is extrapolated to 300 (said in the output).
 * Checks that history at the sampled bars equals the truncated runs, prints the load average,
 * medians, ratios and the targets (history ≤ 3× one run; ≥ 50× faster than 300 runs), and the
 * floor (one run's work plus the window's). Exits 1 on a mismatch.
 *
 * Options (environment): BENCH_SYMBOLS (default 10000), BENCH_BARS (window, default 300),
 * BENCH_WARMUP_BARS (bars before the window, default 300), BENCH_RUNS (default 5),
 * BENCH_SAMPLES (default 15).
 */
import { compile } from "../src/api.js";
import { trustBars } from "../src/eval/bars.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import type { Bars, Instrument } from "../src/types.js";
import { asStoreBars, loadAverage, median } from "./common.js";

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 10_000);
const WINDOW = Number(process.env.BENCH_BARS ?? 300);
const BEFORE = Number(process.env.BENCH_WARMUP_BARS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);

const QUERY = `market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14), volume]
sort = rsi(14) asc
limit = 20
rsi(14) < 30 and volume > avg(volume, 20) * 2 or crossover(ema(close, 9), ema(close, 21)) or close >= highest(high, 52) and close > sma(200)`;

/** Wall and CPU milliseconds of `f` (CPU time moves less when other work shares the cores). */
const time = (f: () => unknown): [number, number] => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return [performance.now() - t0, (c.user + c.system) / 1000];
};

const universe = asStoreBars(syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: BEFORE + WINDOW }));
const length = universe[0]!.bars.h1!.time.length;
const q = compile(QUERY);

/** Every instrument cut after base bar `end` (views, no copy). */
function truncated(end: number): Instrument[] {
  return universe.map((inst) => {
    const b = inst.bars.h1! as { [K in keyof Bars]: Float64Array };
    const cut = (a: Float64Array) => a.subarray(0, end + 1);
    return {
      symbol: inst.symbol,
      bars: { h1: trustBars({ time: cut(b.time), open: cut(b.open), high: cut(b.high), low: cut(b.low), close: cut(b.close), volume: cut(b.volume) }) },
    };
  });
}

// Correctness first, outside the timing: history at sampled bars equals truncated runs.
const history = q.history(universe, { bars: WINDOW });
const sampleEnds = Array.from({ length: SAMPLES }, (_, i) => length - 1 - Math.floor((i * (WINDOW - 1)) / Math.max(1, SAMPLES - 1)));
for (const end of sampleEnds) {
  const t = universe[0]!.bars.h1!.time[end]!;
  const expected = q.run(truncated(end)).results.map((r) => r.symbol).sort();
  const got = history.matches.filter((m) => m.time === t).map((m) => m.symbol);
  if (JSON.stringify(expected) !== JSON.stringify(got)) {
    console.error(`mismatch at bar ${end}: run ${expected.join(",")} vs history ${got.join(",")}`);
    process.exit(1);
  }
}

const runTimes: [number, number][] = [];
const historyTimes: [number, number][] = [];
const sampledTimes: [number, number][] = [];
for (let r = 0; r < RUNS + 1; r++) {
  const a = time(() => q.run(universe));
  const b = time(() => q.history(universe, { bars: WINDOW }));
  const views = sampleEnds.map(truncated);
  const c = time(() => {
    for (const v of views) q.run(v);
  });
  if (r === 0) continue; // warm-up
  runTimes.push(a);
  historyTimes.push(b);
  sampledTimes.push(c);
}
console.log(`screen history: ${SYMBOLS} instruments × ${length} h1 bars, window ${WINDOW}, ${history.stats.matches} matches; ${RUNS} timed runs; ${loadAverage()}`);
for (const [k, what] of [[0, "wall"], [1, "CPU"]] as const) {
  const run = median(runTimes.map((t) => t[k]));
  const hist = median(historyTimes.map((t) => t[k]));
  const separate = (median(sampledTimes.map((t) => t[k])) / SAMPLES) * WINDOW;
  console.log(`${what} time:`);
  console.log(`  one run                         ${run.toFixed(1)} ms`);
  console.log(`  history over ${WINDOW} bars            ${hist.toFixed(1)} ms   (${(hist / run).toFixed(2)}× one run; target ≤ 3×)`);
  console.log(`  ${WINDOW} separate truncated runs   ${separate.toFixed(0)} ms   (${SAMPLES} timed, extrapolated; history ${(separate / hist).toFixed(0)}× faster; target ≥ 50×)`);
}
console.log(`after: ${loadAverage()}`);
