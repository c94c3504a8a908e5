/**
 * `BarStore.upsertBars` batches as the storage engine's writes: one per (market, symbol), one
 * incoming series per timeframe. Bars of one series given in several batches of one call are
 * written as if one after another: of bars sharing a time, the last given wins.
 */
import type { Bars, Timeframe } from "../types.js";
import { BAR_COLUMNS } from "../types.js";
import { type Columns, uniqueBars } from "./blocks.js";
import type { BarBatch, Incoming, SymbolWrite } from "./store.js";
import { XqlDataError } from "../errors.js";

/** One symbol's bars of a call, per timeframe: the batches' parts in order, and whether the first replaces. */
interface Gathered {
  market: string;
  symbol: string;
  series: { timeframe: Timeframe; parts: Bars[]; replace: boolean }[];
}

export function symbolWrites(batches: readonly BarBatch[]): SymbolWrite[] {
  // Found by market, then symbol (no joined key per symbol: an append names 10,000); a symbol's
  // few timeframes in a list.
  const byMarket = new Map<string, Map<string, Gathered>>();
  const writes: Gathered[] = [];
  for (const { market, timeframe, symbols, replace } of batches) {
    let bySymbol = byMarket.get(market);
    if (!bySymbol) byMarket.set(market, (bySymbol = new Map()));
    for (const { symbol, bars } of symbols) {
      let write = bySymbol.get(symbol);
      if (!write) {
        bySymbol.set(symbol, (write = { market, symbol, series: [] }));
        writes.push(write);
      }
      let series = write.series.find((s) => s.timeframe === timeframe);
      if (!series) write.series.push((series = { timeframe, parts: [], replace: false }));
      // A replace drops what the store held before this call, not bars given earlier in it.
      if (replace === true && series.parts.length === 0) series.replace = true;
      series.parts.push(bars);
    }
  }
  return writes.map(({ market, symbol, series }) => ({
    market,
    symbol,
    incoming: series.map(({ timeframe, parts, replace }) => incomingOf(timeframe, parts, replace)),
  }));
}

function incomingOf(timeframe: Timeframe, parts: readonly Bars[], replace: boolean): Incoming {
  const bars = uniqueBars(parts.length === 1 ? parts[0]! : concat(parts));
  return incomingColumns(timeframe, bars, replace);
}

/** Sorted, unique bars as one incoming series. */
export function incomingColumns(timeframe: Timeframe, bars: Columns, replace: boolean): Incoming {
  const n = bars.time.length;
  for (const name of BAR_COLUMNS) {
    const c = bars[name];
    if (c.length !== n) throw new XqlDataError("bars-write", { problem: `Bars of one series must have as many ${name} values as times` });
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(c[i]!)) throw new XqlDataError("bars-write", { problem: `Bar ${name} ${c[i]} at ${bars.time[i]} is not a finite number` });
    }
  }
  return { timeframe, replace, lo: n > 0 ? bars.time[0]! : 0, hi: n > 0 ? bars.time[n - 1]! : 0, count: n, chunks: () => [bars] };
}

function concat(parts: readonly Bars[]): Bars {
  const n = parts.reduce((s, p) => s + p.time.length, 0);
  const out = { time: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
  let at = 0;
  for (const p of parts) {
    for (const name of BAR_COLUMNS) {
      const c = p[name];
      for (let i = 0; i < c.length; i++) out[name][at + i] = c[i]!;
    }
    at += p.time.length;
  }
  return out;
}
