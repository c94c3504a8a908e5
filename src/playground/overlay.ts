/**
 * The numeric columns of a screen as series over a symbol's bars, for the chart: the value at
 * bar t is the query's column as `run` computes it on the bars truncated after t (decisions §5,
 * screen history), so a line on the chart ends exactly at the value in the results table.
 */
import { compile } from "../api.js";
import { parse } from "../ast/lower.js";
import { printStatement } from "../ast/print.js";
import type { Bars, Instrument, Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";

/**
 * The query with its condition replaced by `true` and no sort or limit: every instrument with
 * enough history reports its columns. `undefined` when the query has no columns or does not parse.
 */
export function columnsQuery(text: string): string | undefined {
  let statements;
  try {
    statements = parse(text).statements;
  } catch {
    return undefined;
  }
  if (!statements.some((s) => s.kind === "columns")) return undefined;
  const kept = statements.filter((s) => s.kind === "market" || s.kind === "timeframeSetting" || s.kind === "columns" || s.kind === "let");
  // `;` after each statement: a line break is not a token, and `true` must not continue a let.
  return `${kept.map((s) => `${printStatement(s)};`).join("\n")}\ntrue`;
}

function sliceBars(bars: Bars, end: number): Bars {
  const cut = (a: ArrayLike<number>): ArrayLike<number> => (a instanceof Float64Array ? a.subarray(0, end) : Array.prototype.slice.call(a, 0, end));
  return { time: cut(bars.time), open: cut(bars.open), high: cut(bars.high), low: cut(bars.low), close: cut(bars.close), volume: cut(bars.volume) };
}

/** How many bars of `bars` opened before `limit` (ms). */
function countBefore(bars: Bars, limit: number): number {
  let lo = 0;
  let hi = bars.time.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bars.time[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Each column's value at each of the last `count` base bars of `instrument` (`null` where it is
 * undefined), keyed by the column's text. Other timeframes are cut at the base bar's close,
 * as the service's fetch cuts them.
 */
export function columnHistory(text: string, instrument: Instrument, base: Timeframe, count: number): Map<string, (number | null)[]> {
  const out = new Map<string, (number | null)[]>();
  const query = columnsQuery(text);
  const baseBars = instrument.bars[base];
  if (query === undefined || baseBars === undefined) return out;
  const compiled = compile(query);
  const n = baseBars.time.length;
  const from = Math.max(0, n - count);
  for (let t = from; t < n; t++) {
    const close = baseBars.time[t]! + TIMEFRAME_MS[base];
    const bars: Partial<Record<Timeframe, Bars>> = {};
    for (const [tf, b] of Object.entries(instrument.bars) as [Timeframe, Bars][]) {
      bars[tf] = tf === base ? sliceBars(b, t + 1) : sliceBars(b, countBefore(b, close));
    }
    const row = compiled.run([{ symbol: instrument.symbol, bars }]).results[0];
    for (const [key, value] of Object.entries(row?.columns ?? {})) {
      let series = out.get(key);
      if (!series) out.set(key, (series = new Array<number | null>(t - from).fill(null)));
      series.push(typeof value === "number" && Number.isFinite(value) ? value : null);
    }
    for (const series of out.values()) if (series.length < t - from + 1) series.push(null);
  }
  return out;
}
