/**
 * The log of what each write touched, kept in the store beside the data version (table
 * `changes`, migration 4), so a reader in another process (the service, while `xql data sync
 * --follow` writes) refreshes the series a write touched instead of everything it holds.
 */
import type { Timeframe } from "../types.js";
import type { TouchedSeries } from "./engine/writer.js";

/** Writes the log keeps; a reader further behind than that reads everything again. */
export const CHANGES_KEPT = 256;

/** One write's touched series, grouped by (market, timeframe, from): appends to many symbols stay small. */
type Group = [market: string, timeframe: Timeframe, from: number | null, symbols: string[]];

export function encodeTouched(touched: readonly TouchedSeries[]): string {
  // Grouped by the key's parts in turn, not a joined key per series: an append to 10,000
  // symbols touches 40,000 series.
  const groups: Group[] = [];
  const byMarket = new Map<string, Map<Timeframe, Map<number | null, Group>>>();
  for (const t of touched) {
    const from = Number.isFinite(t.from) ? t.from : null;
    let byTimeframe = byMarket.get(t.market);
    if (!byTimeframe) byMarket.set(t.market, (byTimeframe = new Map()));
    let byFrom = byTimeframe.get(t.timeframe);
    if (!byFrom) byTimeframe.set(t.timeframe, (byFrom = new Map()));
    const group = byFrom.get(from);
    if (group) group[3].push(t.symbol);
    else {
      const created: Group = [t.market, t.timeframe, from, [t.symbol]];
      byFrom.set(from, created);
      groups.push(created);
    }
  }
  return JSON.stringify(groups);
}

export function decodeTouched(text: string): TouchedSeries[] {
  const out: TouchedSeries[] = [];
  for (const [market, timeframe, from, symbols] of JSON.parse(text) as Group[]) {
    for (const symbol of symbols) out.push({ market, timeframe, symbol, from: from ?? Number.NEGATIVE_INFINITY });
  }
  return out;
}
