/**
 * What the evaluation benches share: the machine's load as `uptime` reports it, medians, and
 * the universe as the store hands it out (bars marked checked, as `fetchUniverse` marks them)
 * beside the same bars injected by a caller (checked on every run).
 */
import { loadavg } from "node:os";
import { trustBars } from "../src/eval/bars.js";
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
