/**
 * `xql history [FILE|-] [--bars N]`: screen history over the embedded store (or the synthetic
 * universe): when did the screen match over the last N base bars, and what followed. JSON output
 * is exactly the body of `POST /xql/history`.
 */
import { parseArgs } from "node:util";
import type { Command } from "../command.js";
import { UsageError, readQueryArg } from "../command.js";
import { compile, type CompiledQuery } from "../../api.js";
import { XqlError } from "../../errors.js";
import { DEFAULT_WARMUP, fetchCount, fetchUniverse } from "../../data/fetch.js";
import { syntheticUniverse } from "../../data/synthetic.js";
import { CRYPTO_SYMBOLS, FOREX_SYMBOLS } from "../../data/symbols.js";
import { DEFAULT_HISTORY_BARS, DEFAULT_MARKETS, MAX_HISTORY_BARS, type HistoryResult, type Instrument } from "../../types.js";
import { databasePath, marketsOf, openStore, seedOnFirstUse } from "../store.js";
import { formatNumber, renderTable } from "../table.js";

const help = `Usage: xql history [FILE|-] [--bars N] [--format json|table|csv] [--db FILE|URL] [--warmup N]
       xql history [FILE|-] --synthetic [--bars N] [--format json|table|csv]

Screen history: evaluates the query (from FILE, or standard input for - or no FILE) at each
of the last N base bars as if that bar were the latest, and reports when it matched and how
the close moved 1, 5 and 20 bars later. The values at a past bar are exactly what a run at
that time would have shown: no later bar is read. It is a screen's hit history, not a
trading backtest (no costs, no position sizing).

Output: --format json (default) prints the body of POST /xql/history
({"matches", "stats", "meta"}); --format table prints matches per day and the forward
statistics; --format csv prints one line per match (time, symbol, columns).
A query error prints the 400 body {"valid": false, "error": {...}} and exits 1.

Options:
  --bars N      base bars to evaluate at (default ${DEFAULT_HISTORY_BARS}, at most ${MAX_HISTORY_BARS})
  --format F    json (default), table or csv
  --synthetic   use the in-memory synthetic universe instead of the store
  --warmup N    bars of history per source before the window (default ${DEFAULT_WARMUP})
  --db FILE|URL database file (default: $XQL_DB, else .xql/xql.db), or a
                PostgreSQL URL (default: $XQL_DATABASE_URL, which wins over $XQL_DB)

Example:
  xql history examples/oversold.xql --bars 300 --format table
`;

const SYNTHETIC_SYMBOLS: Record<string, number> = { FOREX: FOREX_SYMBOLS.length, CRYPTO: CRYPTO_SYMBOLS.length };

function positiveInteger(text: string | undefined, name: string, fallback: number, max = Infinity): number {
  if (text === undefined) return fallback;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= max)) throw new UsageError(`--${name} must be an integer from 1${max === Infinity ? " up" : ` to ${max}`}`);
  return n;
}

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
  const quote = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [["time", "symbol", ...names].map(quote).join(",")];
  for (const m of h.matches) {
    lines.push([new Date(m.time).toISOString(), quote(m.symbol), ...names.map((n) => (m.columns[n] == null ? "" : String(m.columns[n])))].join(","));
  }
  return `${lines.join("\n")}\n`;
}

function compileOrReport(query: string, markets: readonly string[]): CompiledQuery | undefined {
  try {
    return compile(query, { markets });
  } catch (error) {
    if (!(error instanceof XqlError)) throw error;
    process.stdout.write(`${JSON.stringify(error.toResult())}\n`);
    return undefined;
  }
}

export const historyCommand: Command = {
  name: "history",
  summary: "When did a screen match over the last N bars, and what followed",
  help,
  async run(args) {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        allowPositionals: true,
        strict: true,
        options: {
          bars: { type: "string" },
          format: { type: "string" },
          synthetic: { type: "boolean" },
          warmup: { type: "string" },
          db: { type: "string" },
        },
      });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const { values, positionals } = parsed;
    if (positionals.length > 1) throw new UsageError("history takes at most one FILE");
    const format = values.format ?? "json";
    if (format !== "json" && format !== "table" && format !== "csv") throw new UsageError(`Unknown format '${format}': use json, table or csv`);
    const bars = positiveInteger(values.bars, "bars", DEFAULT_HISTORY_BARS, MAX_HISTORY_BARS);
    const warmup = positiveInteger(values.warmup, "warmup", DEFAULT_WARMUP);
    const query = await readQueryArg(positionals[0]);

    let universe: Instrument[];
    let compiled: CompiledQuery | undefined;
    if (values.synthetic) {
      if (values.db !== undefined) throw new UsageError("--synthetic uses no database; drop --db");
      compiled = compileOrReport(query, DEFAULT_MARKETS);
      if (!compiled) return 1;
      const { plan } = compiled;
      const count =
        Math.max(...plan.sources.map((s) => fetchCount(s.minLookback, warmup)), ...compiled.fetch.map((f) => f.bars)) + bars;
      universe = syntheticUniverse({
        market: plan.market,
        symbols: SYNTHETIC_SYMBOLS[plan.market] ?? 0,
        timeframes: plan.sources.map((s) => s.timeframe),
        bars: count,
      });
    } else {
      const store = await openStore(databasePath(values.db));
      try {
        compiled = compileOrReport(query, await marketsOf(store));
        if (!compiled) return 1;
        await seedOnFirstUse(store);
        universe = await fetchUniverse(store, compiled.plan, { warmup, fetch: compiled.fetch, extraBaseBars: bars - 1 });
      } finally {
        await store.close();
      }
    }
    const result = compiled.history(universe, { bars });
    process.stdout.write(format === "json" ? `${JSON.stringify(result)}\n` : format === "csv" ? historyCsv(result) : historyTable(result));
    return 0;
  },
};
