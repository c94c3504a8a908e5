/**
 * What the evaluation benches share: the machine's load as `uptime` reports it, medians, and
 * the universe as the store hands it out (bars marked checked, as `fetchUniverse` marks them)
 * beside the same bars injected by a caller (checked on every run).
 */
import { loadavg } from "node:os";
import { trustBars } from "../src/eval/bars.js";
import type { BarBatch } from "../src/store/store.js";
import type { Bars, Instrument } from "../src/types.js";

/** `load average: 1.02, 0.87, 0.80`, as uptime prints it (1, 5 and 15 minutes). */
export function loadAverage(): string {
  return `load average: ${loadavg().map((x) => x.toFixed(2)).join(", ")}`;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The universe as `fetchUniverse` hands it out: the same arrays in fresh `Bars` objects marked
 * as the store's, so the evaluator skips its pass over their times (src/eval/bars.ts). The
 * universe given keeps its own, unmarked objects: runs over it are checked as a caller's.
 */
export function asStoreBars(universe: readonly Instrument[]): Instrument[] {
  return universe.map(({ symbol, bars }) => ({
    symbol,
    bars: Object.fromEntries(Object.entries(bars).map(([tf, b]) => [tf, trustBars({ ...(b as Bars) })])),
  }));
}

/**
 * Alert screen number k of the alert benches: events (crosses, breakouts, extremes) that a few
 * symbols of a large CRYPTO market start or stop matching at most bars, of four shapes whose
 * parameters grow with k, so k < 100 are 100 distinct texts. Each shows its indicator as a
 * column; `bare`, only the close (the breakout's `highest()` is then read only a bar back).
 */
export function alertScreen(k: number, bare = false): string {
  const head = 'market = "CRYPTO"\ntimeframe = h1\n';
  const n = Math.floor(k / 4);
  const columns = (indicator: string): string => (bare ? "columns = [close]" : `columns = [close, ${indicator}]`);
  switch (k % 4) {
    case 0:
      return `${head}${columns(`sma(${10 + n})`)}\ncrossover(close, sma(${10 + n}))`;
    case 1:
      return `${head}${columns(`ema(close, ${5 + n})`)}\ncrossunder(close, ema(close, ${5 + n}))`;
    case 2:
      return `${head}${columns("rsi(14)")}\nrsi(14) < ${12 + n}`;
    default:
      return `${head}${columns(`highest(high, ${20 + n})`)}\nclose > highest(high, ${20 + n})[1]`;
  }
}

/** The h1 bars of every CRYPTO instrument from index `from` to `to` (exclusive), as one batch (views, no copy). */
export function barBatch(universe: readonly Instrument[], from: number, to: number): BarBatch {
  return {
    market: "CRYPTO",
    timeframe: "h1",
    symbols: universe.map((i) => {
      const b = i.bars.h1! as Record<"time" | "open" | "high" | "low" | "close" | "volume", Float64Array>;
      const cut = (a: Float64Array): Float64Array => a.subarray(from, to);
      return { symbol: i.symbol, bars: { time: cut(b.time), open: cut(b.open), high: cut(b.high), low: cut(b.low), close: cut(b.close), volume: cut(b.volume) } };
    }),
  };
}
