/**
 * How commands print what they found: a query error as JSON on standard output (the HTTP 400
 * body, for scripts) and, for people, as the source line with a caret under the position;
 * result rows as JSON, an aligned table or CSV.
 */
import { compile, type CompiledQuery } from "../api.js";
import { XqlError } from "../errors.js";
import { TIMEFRAME_MS, type ErrorBody, type InvalidResult, type Plan, type RunMeta, type RunResult, type Timeframe, type XqlOptions } from "../types.js";
import type { CliIo, Format } from "./command.js";
import type { ColumnKind } from "../functions/module.js";
import { formatColumnValue } from "../precision.js";
import { renderTable } from "./table.js";

/**
 * `syntax error at q.xql:3:10: Unknown identifier 'avgw', did you mean 'avgv'?` followed by
 * the line and a caret under the column. Tabs before the column are kept, so the caret lines
 * up in a terminal whatever its tab width.
 */
export function describeQueryError(error: ErrorBody, query: string, source: string): string {
  const position = error.position;
  if (position === undefined) return `${error.type} error in ${source}: ${error.message}\n`;
  const lines = query.split(/\r\n|\n|\r/);
  const line = lines[position.line - 1] ?? "";
  const gutter = String(position.line);
  const before = line.slice(0, position.column - 1).replace(/[^\t]/g, " ");
  return [
    `${error.type} error at ${source}:${position.line}:${position.column}: ${error.message}`,
    ` ${gutter} | ${line}`,
    ` ${" ".repeat(gutter.length)} | ${before}^`,
    "",
  ].join("\n");
}

/**
 * Reports a query error. JSON (the default on a pipe) prints the 400 body on standard output,
 * exactly as the service answers; `--format table` or `csv`, or a terminal on standard error,
 * also (or only, for table and csv) shows the source line with a caret on standard error.
 */
export function reportQueryError(io: CliIo, result: InvalidResult, query: string, file: string | undefined, format: Format): void {
  if (format === "json") io.stdout.write(`${JSON.stringify(result)}\n`);
  if (format !== "json" || io.stderr.isTTY) {
    io.stderr.write(describeQueryError(result.error, query, file === undefined || file === "-" ? "<stdin>" : file));
  }
}

/**
 * A CSV field of text: a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets
 * a `'` in front (decisions §2: a spreadsheet would run `=HYPERLINK(…)` in a key's label, or
 * `-2+3+close*0` in a column's name, as a formula); then quoted when it holds a comma, a quote
 * or a line break (column keys like `sma(close, 20)` do).
 */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * Rows as CSV with a header line; `null` cells are empty. Numbers are written as numbers: a
 * negative value is data a spreadsheet reads as a number, not a formula, so only text cells
 * are neutralised ({@link csvField}).
 */
export function renderCsv(header: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  const cell = (value: string | number | null): string => (value === null ? "" : typeof value === "number" ? String(value) : csvField(value));
  return [header, ...rows].map((row) => row.map(cell).join(",")).join("\n") + "\n";
}

/**
 * The body of a run in the chosen format. JSON is exactly the HTTP body. The table shows each
 * column by what it holds (`kinds`, the query's `columnKinds`): prices to the decimals the
 * symbol's prices are quoted in (`decimals`, by symbol), oscillators to two decimals, volumes
 * grouped, other numbers to six significant digits ({@link formatColumnValue}); CSV and JSON
 * carry every digit.
 */
export function renderRunResult(
  result: RunResult,
  format: Format,
  decimals: ReadonlyMap<string, number> = new Map(),
  kinds: Readonly<Record<string, ColumnKind>> = {},
  plan?: Plan,
): string {
  if (format === "json") return `${JSON.stringify(result)}\n`;
  const names = [...new Set(result.results.flatMap((row) => Object.keys(row.columns)))];
  if (format === "csv") {
    return renderCsv(["symbol", ...names], result.results.map((row) => [row.symbol, ...names.map((name) => row.columns[name] ?? null)]));
  }
  const rows = result.results.map((row) => [
    row.symbol,
    ...names.map((name) => formatColumnValue(row.columns[name], kinds[name] ?? "number", decimals.get(row.symbol))),
  ]);
  return renderTable(["symbol", ...names], rows, [false, ...names.map(() => true)]) + `${metaFooter(result, plan)}\n`;
}

/**
 * The footer of `--format table`: shown against matched (before limit), instruments and why
 * any were skipped, and the time of the data, e.g.
 * `2 matches of 28 instruments (3 short history, 1 no data) · as of 2026-01-02T13:00:00.000Z`.
 * When no instrument could be evaluated there is no time to give: it says why instead, from
 * what `meta` counts and what the `plan` needs, e.g. `3 instruments have fewer than 200 daily
 * bars` (not "as of no bars" while m1 bars exist).
 */
export function metaFooter({ results, meta }: RunResult, plan?: Plan): string {
  const shown = results.length;
  const head =
    shown === meta.matched
      ? `${meta.matched} match${meta.matched === 1 ? "" : "es"}`
      : `${shown} shown of ${meta.matched} matches`;
  const skipped: string[] = [];
  if (meta.skipped.shortHistory > 0) skipped.push(`${meta.skipped.shortHistory} short history`);
  if (meta.skipped.noData > 0) skipped.push(`${meta.skipped.noData} no data`);
  const of = `of ${meta.instruments} instrument${meta.instruments === 1 ? "" : "s"}${skipped.length > 0 ? ` (${skipped.join(", ")})` : ""}`;
  return `${head} ${of} · ${meta.asOf !== null ? `as of ${meta.asOf}` : nothingEvaluated(meta, plan)}`;
}

const TIMEFRAME_WORDS: Readonly<Record<Timeframe, string>> = {
  m1: "m1",
  m5: "m5",
  m15: "m15",
  m30: "m30",
  h1: "hourly",
  h4: "h4",
  d: "daily",
  w: "weekly",
};

/** Why no instrument was evaluated: too little history for what the plan needs, or no bars at all. */
function nothingEvaluated({ skipped }: RunMeta, plan: Plan | undefined): string {
  const parts: string[] = [];
  if (skipped.shortHistory > 0) {
    // An instrument is short when any source holds fewer bars than its lookback: name every need beyond one bar.
    const needs = (plan?.sources ?? [])
      .filter((source) => source.minLookback > 1)
      .sort((a, b) => TIMEFRAME_MS[b.timeframe] - TIMEFRAME_MS[a.timeframe])
      .map((source) => `${source.minLookback.toLocaleString("en-US")} ${TIMEFRAME_WORDS[source.timeframe]} bars`);
    const have = `${skipped.shortHistory} instrument${skipped.shortHistory === 1 ? " has" : "s have"}`;
    parts.push(needs.length > 0 ? `${have} fewer than ${needs.join(" or ")}` : `${have} too short a history`);
  }
  if (skipped.noData > 0) {
    const timeframes = (plan?.sources ?? []).map((source) => source.timeframe).join(", ");
    parts.push(`${skipped.noData} ha${skipped.noData === 1 ? "s" : "ve"} no bars${timeframes ? ` on ${timeframes}` : ""}`);
  }
  return parts.length > 0 ? parts.join("; ") : "no bars";
}

/** Compiles, or reports the query error (as {@link reportQueryError} does) and returns undefined: exit 1. */
export function compileOrReport(io: CliIo, query: string, file: string | undefined, format: Format, options: XqlOptions): CompiledQuery | undefined {
  try {
    return compile(query, options);
  } catch (error) {
    if (!(error instanceof XqlError)) throw error;
    reportQueryError(io, error.toResult(), query, file, format);
    return undefined;
  }
}
