/**
 * `xql history [FILE|-] [--bars N]`: screen history over the embedded store (or the synthetic
 * universe): when did the screen match over the last N base bars, and what followed. JSON output
 * is exactly the body of `POST /xql/history`.
 */
import type { Command } from "../command.js";
import { QUERY_LIMIT_OPTIONS, formatOption, optionsHelp, parseCommandLine, pick, positiveInteger, readQueryArg } from "../command.js";
import { renderCsv } from "../report.js";
import { compileWithBars, screenLimits } from "../screen-bars.js";
import { DEFAULT_HISTORY_BARS, MAX_HISTORY_BARS, type HistoryResult } from "../../types.js";
import { formatNumber, renderTable } from "../table.js";

const OPTIONS = { ...pick("bars", "format", "db", "synthetic"), ...QUERY_LIMIT_OPTIONS };

const help = `Usage: xql history [FILE|-] [--bars N] [--format json|table|csv] [--db FILE|URL] [--ceiling N] [--warmup-ceiling N]
       xql history [FILE|-] --synthetic [--bars N] [--format json|table|csv]

Screen history: evaluates the query (from FILE, or standard input for - or no FILE) at each
of the last N base bars as if that bar were the latest, and reports when it matched and how
the close moved 1, 5 and 20 bars later. The values at a past bar are exactly what a run at
that time would have shown: no later bar is read. It is a screen's hit history, not a
trading backtest (no costs, no position sizing).

Output: --format json (default) prints the body of POST /xql/history
({"matches", "stats", "meta"}); --format table prints matches per day and the forward
statistics; --format csv prints one line per match (time, symbol, columns).
A query error prints the 400 body {"valid": false, "error": {...}} and exits 1 (with table
or csv, or on a terminal, the source line with a caret under the mistake on standard error).

${optionsHelp(OPTIONS)}

Example:
  xql history examples/oversold.xql --bars 300 --format table
`;

const iso = (ms: number): string => new Date(ms).toISOString().replace("T", " ").replace(/:00\.000Z$/, "");

/** The table for people: matches per UTC day, the forward statistics, the totals. */
export function historyTable(h: HistoryResult): string {
  const days = new Map<string, { matches: number; symbols: Set<string> }>();
  for (const m of h.matches) {
    const day = new Date(m.time).toISOString().slice(0, 10);
    let d = days.get(day);
    if (!d) days.set(day, (d = { matches: 0, symbols: new Set() }));
    d.matches++;
    d.symbols.add(m.symbol);
  }
  const shown = (symbols: Set<string>): string => {
    const list = [...symbols].sort();
    return list.length <= 6 ? list.join(" ") : `${list.slice(0, 6).join(" ")} +${list.length - 6}`;
  };
  const parts: string[] = [];
  const first = h.matches.length > 0 ? h.matches[0]!.time : undefined;
  parts.push(
    h.meta.asOf === null
      ? "No bars to evaluate.\n"
      : `Screen history over ${h.stats.bars} base bars up to ${iso(Date.parse(h.meta.asOf))} UTC` +
          (first === undefined ? "\n" : `, first match ${iso(first)} UTC\n`),
  );
  if (days.size > 0) {
    parts.push(
      renderTable(
        ["day", "matches", "symbols"],
        [...days].map(([day, d]) => [day, String(d.matches), shown(d.symbols)]),
        [false, true, false],
      ),
    );
  }
  parts.push(
    renderTable(
      ["forward", "n", "mean %", "median %", "hit rate"],
      (["1", "5", "20"] as const).map((k) => {
        const s = h.stats.forward[k];
        return [`${k} bar${k === "1" ? "" : "s"}`, String(s.n), formatNumber(s.mean), formatNumber(s.median), formatNumber(s.hitRate)];
      }),
      [false, true, true, true, true],
    ),
  );
  const { instruments, skipped } = h.meta;
  parts.push(
    `${h.stats.matches} match${h.stats.matches === 1 ? "" : "es"} on ${h.stats.symbolsMatched} symbol${h.stats.symbolsMatched === 1 ? "" : "s"}; ` +
      `${instruments} instruments, ${skipped.shortHistory} with too little history, ${skipped.noData} without data\n`,
  );
  return parts.join("\n");
}

/** One CSV line per match: time (ISO), symbol, then the columns in the query's order. */
export function historyCsv(h: HistoryResult): string {
  const names = [...new Set(h.matches.flatMap((m) => Object.keys(m.columns)))];
  return renderCsv(
    ["time", "symbol", ...names],
    h.matches.map((m) => [new Date(m.time).toISOString(), m.symbol, ...names.map((n) => m.columns[n] ?? null)]),
  );
}

export const historyCommand: Command = {
  name: "history",
  summary: "When did a screen match over the last N bars, and what followed",
  help,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("history", args, OPTIONS, 1);
    const format = formatOption("history", values.format);
    const bars = positiveInteger("history", "bars", values.bars, MAX_HISTORY_BARS) ?? DEFAULT_HISTORY_BARS;
    const limits = screenLimits("history", values);
    const file = positionals[0];
    const query = await readQueryArg(file, io);
    const screen = await compileWithBars("history", io, query, file, format, values, limits, bars - 1);
    if (!screen) return 1;
    const result = await screen.history(bars);
    io.stdout.write(format === "json" ? `${JSON.stringify(result)}\n` : format === "csv" ? historyCsv(result) : historyTable(result));
    return 0;
  },
};
