/**
 * Generating the synthetic universe (src/synthetic), the speed targets that used to be timed
 * inside the unit tests: 250 CRYPTO symbols × 8 timeframes × 300 bars in under 2 s, and 250
 * symbols of 300 weekly plus 300 m1 bars in under 1 s (only the weeks the minutes need are
 * split). Medians of BENCH_RUNS (default 5) runs after a warm-up, with the machine's load;
 * exit status 1 when a median misses its target. BENCH_SYMBOLS (default 250) shrinks the run
 * to check the script itself.
 *
 *   npm run bench:synthetic
 */
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import { TIMEFRAMES } from "../src/types.js";
import { loadAverage, median } from "./common.js";

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 250);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function timed(make: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    make();
    times.push(performance.now() - started);
  }
  return median(times);
}

// Warm up the JIT on a small universe first.
syntheticUniverse({ market: "CRYPTO", symbols: 20, timeframes: [...TIMEFRAMES], bars: 300 });
const cases = [
  { name: `${SYMBOLS} symbols × 8 timeframes × 300 bars`, targetMs: 2_000, make: () => syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: [...TIMEFRAMES], bars: 300, end: Date.UTC(2026, 10, 22, 9, 41, 7, 500) }) },
  { name: `${SYMBOLS} symbols × (300 w + 300 m1)`, targetMs: 1_000, make: () => syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["w", "m1"], bars: 300 }) },
];
console.log(`synthetic universe (${loadAverage()}; median of ${RUNS})`);
let missed = false;
for (const c of cases) {
  const ms = timed(c.make);
  const ok = ms < c.targetMs;
  missed ||= !ok;
  console.log(`  ${c.name}: ${ms.toFixed(0)} ms (target < ${c.targetMs} ms) ${ok ? "ok" : "MISSED"}`);
}
process.exitCode = missed ? 1 : 0;
