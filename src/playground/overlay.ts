/**
 * The numeric columns of a screen as series over a symbol's bars, for the chart: the value at
 * bar t is the query's column as the service computes it at t — on the bars truncated after t,
 * each source's from the screen's anchor at t (decisions §9) — so a line on the chart ends
 * exactly at the value in the results table.
 */
import { compile } from "../api.js";
import { parse } from "../ast/lower.js";
import { printStatement } from "../ast/print.js";
import { anchorReach } from "../eval/anchor.js";
import { anchoredInstrument } from "../eval/truncate.js";
import type { Instrument, Timeframe } from "../types.js";

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

/**
 * Bars of `timeframe` the chart reads so that its latest bar holds every bar from the screen's
 * anchor (decisions §9): its line there ends at the table's value. 1 when the query does not
 * compile or does not read that timeframe.
 */
export function chartBars(text: string, timeframe: Timeframe): number {
  try {
    const q = compile(text);
    const source = q.fetch.find((f) => f.timeframe === timeframe);
    return source ? anchorReach(q.plan.market, q.plan.sources[0]!.timeframe, timeframe, source.bars) : 1;
  } catch {
    return 1;
  }
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
  // The anchors are the screen's own (its fetch), not those of the columns' query.
  let screen;
  try {
    screen = compile(text);
  } catch {
    return out;
  }
  const n = baseBars.time.length;
  const from = Math.max(0, n - count);
  for (let t = from; t < n; t++) {
    const row = compiled.run([anchoredInstrument(instrument, base, baseBars.time[t]!, screen.anchor)]).results[0];
    for (const [key, value] of Object.entries(row?.columns ?? {})) {
      let series = out.get(key);
      if (!series) out.set(key, (series = new Array<number | null>(t - from).fill(null)));
      series.push(typeof value === "number" && Number.isFinite(value) ? value : null);
    }
    for (const series of out.values()) if (series.length < t - from + 1) series.push(null);
  }
  return out;
}
