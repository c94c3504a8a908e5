/**
 * Screen history's figures (decisions §5): the matches of a history pass as the public result,
 * and the forward-return statistics at 1, 5 and 20 base bars.
 */
import type { ForwardStats, HistoryMatch, HistoryResult } from "../types.js";
import type { HistoryScan } from "./evaluate.js";

/** The horizons, in base bars, of the forward-return statistics. */
export const FORWARD_HORIZONS = [1, 5, 20] as const;

/**
 * `{ n, mean, median, hitRate }` of the returns in percent; with no return, n = 0 and the others
 * null. hitRate is the share (0..1) of returns above 0; an even count's median is the mean of the
 * middle two.
 */
export function forwardStats(returns: readonly number[]): ForwardStats {
  const n = returns.length;
  if (n === 0) return { n: 0, mean: null, median: null, hitRate: null };
  const sorted = [...returns].sort((a, b) => a - b);
  // Summed in ascending order with compensation: the mean of many small returns should not
  // depend on the order matches happened to come in.
  let sum = 0;
  let c = 0;
  let up = 0;
  for (const r of sorted) {
    const t = sum + r;
    c += Math.abs(sum) >= Math.abs(r) ? sum - t + r : r - t + sum;
    sum = t;
    if (r > 0) up++;
  }
  const mid = n >> 1;
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { n, mean: (sum + c) / n, median, hitRate: up / n };
}

/**
 * The close-to-close return in percent from base bar `index` to `k` bars later, or undefined
 * when the instrument has no bar k bars later or the return is not a finite number (a zero or
 * missing close).
 */
export function forwardReturn(close: ArrayLike<number>, index: number, length: number, k: number): number | undefined {
  if (index + k >= length) return undefined;
  const r = 100 * (Number(close[index + k]) / Number(close[index]) - 1);
  return Number.isFinite(r) ? r : undefined;
}

/** Assembles the public history result from one pass. */
export function historyResult(scan: HistoryScan): HistoryResult {
  const matches: HistoryMatch[] = [];
  const returns: Record<string, number[]> = Object.fromEntries(FORWARD_HORIZONS.map((k) => [String(k), []]));
  const symbols = new Set<string>();
  scan.perBar.forEach((hits, b) => {
    const time = scan.window[b]!;
    for (const hit of hits) {
      const { symbol, columns } = hit.ranked.row;
      matches.push({ time, symbol, columns });
      symbols.add(symbol);
      for (const k of FORWARD_HORIZONS) {
        const r = forwardReturn(hit.close, hit.index, hit.length, k);
        if (r !== undefined) returns[String(k)]!.push(r);
      }
    }
  });
  const last = scan.window[scan.window.length - 1];
  return {
    matches,
    stats: {
      bars: scan.window.length,
      matches: matches.length,
      symbolsMatched: symbols.size,
      forward: {
        "1": forwardStats(returns["1"]!),
        "5": forwardStats(returns["5"]!),
        "20": forwardStats(returns["20"]!),
      },
    },
    meta: {
      instruments: scan.instruments,
      matched: scan.matched,
      skipped: { shortHistory: scan.shortHistory, noData: scan.noData },
      asOf: last === undefined ? null : new Date(last).toISOString(),
    },
  };
}
