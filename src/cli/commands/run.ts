/**
 * `xql run [FILE|-]`: runs a query over the embedded store (seeded on first use), or over an
 * in-memory synthetic universe with `--synthetic`. JSON output is exactly the HTTP body.
 */
import type { Command } from "../command.js";
import { UsageError, parseFlags, readQueryArg } from "../command.js";
import { compile, type CompiledQuery } from "../../api.js";
import { XqlError } from "../../errors.js";
import { DEFAULT_WARMUP, fetchCount, fetchUniverse } from "../../data/fetch.js";
import { syntheticUniverse } from "../../data/synthetic.js";
import { CRYPTO_SYMBOLS, FOREX_SYMBOLS } from "../../data/symbols.js";
import type { Instrument, RunResult, XqlOptions } from "../../types.js";
import { DEFAULT_MARKETS } from "../../types.js";
import { databasePath, marketsOf, openStore, seedOnFirstUse } from "../store.js";
import { formatNumber, renderTable } from "../table.js";

const help = `Usage: xql run [FILE|-] [--format json|table] [--db FILE|URL] [--warmup N]
       xql run [FILE|-] --synthetic [--format json|table]

Runs a query (from FILE, or standard input for - or no FILE) and prints the matches.

By default the bars come from the embedded store, exactly as the service reads them:
the latest max(minLookback, warmup) bars of every symbol of the query's market. An empty
store is seeded with the synthetic FOREX and CRYPTO universe first (once).

With --synthetic no database is used: the query runs over the deterministic in-memory
synthetic universe of its market.

Output: --format json (default) prints {"results": [...]}, the body of POST /xql/run;
--format table prints a table for people. A query error prints the 400 body
{"valid": false, "error": {...}} on standard output and exits 1.

Options:
  --format F    json (default) or table
  --synthetic   run over the in-memory synthetic universe instead of the store
  --warmup N    bars of history per source (default ${DEFAULT_WARMUP})
  --db FILE|URL database file (default: $XQL_DB, else .xql/xql.db), or a
                PostgreSQL URL (default: $XQL_DATABASE_URL, which wins over $XQL_DB)

Example:
  xql run examples/oversold.xql --format table
`;

const SYNTHETIC_SYMBOLS: Record<string, number> = { FOREX: FOREX_SYMBOLS.length, CRYPTO: CRYPTO_SYMBOLS.length };

function printResult(result: RunResult, format: string): void {
  if (format === "json") {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const names = [...new Set(result.results.flatMap((row) => Object.keys(row.columns)))];
  const rows = result.results.map((row) => [row.symbol, ...names.map((name) => formatNumber(row.columns[name] ?? null))]);
  process.stdout.write(renderTable(["symbol", ...names], rows, [false, ...names.map(() => true)]));
  process.stdout.write(`${metaFooter(result)}\n`);
}

/**
 * The footer of `--format table`: shown against matched (before limit), instruments and why
 * any were skipped, and the time of the data, e.g.
 * `2 matches of 28 instruments (3 short history, 1 no data) · as of 2026-01-02T13:00:00.000Z`.
 */
export function metaFooter({ results, meta }: RunResult): string {
  const shown = results.length;
  const head =
    shown === meta.matched
      ? `${meta.matched} match${meta.matched === 1 ? "" : "es"}`
      : `${shown} shown of ${meta.matched} matches`;
  const skipped: string[] = [];
  if (meta.skipped.shortHistory > 0) skipped.push(`${meta.skipped.shortHistory} short history`);
  if (meta.skipped.noData > 0) skipped.push(`${meta.skipped.noData} no data`);
  const of = `of ${meta.instruments} instrument${meta.instruments === 1 ? "" : "s"}${skipped.length > 0 ? ` (${skipped.join(", ")})` : ""}`;
  return `${head} ${of} · as of ${meta.asOf ?? "no bars"}`;
}

/** Compiles, or prints the 400 body and tells the caller to exit 1. */
function compileOrReport(query: string, options: XqlOptions): CompiledQuery | undefined {
  try {
    return compile(query, options);
  } catch (error) {
    if (!(error instanceof XqlError)) throw error;
    process.stdout.write(`${JSON.stringify(error.toResult())}\n`);
    return undefined;
  }
}

export const runCommand: Command = {
  name: "run",
  summary: "Run a query over the embedded store (or --synthetic data) and print the matches",
  help,
  async run(args) {
    const { flags, positionals } = parseFlags(args, ["synthetic"]);
    if (positionals.length > 1) throw new UsageError("run takes at most one FILE");
    const format = flags.get("format") ?? "json";
    if (format !== "json" && format !== "table") throw new UsageError(`Unknown format '${format}': use json or table`);
    const warmupText = flags.get("warmup");
    const warmup = warmupText === undefined ? DEFAULT_WARMUP : Number(warmupText);
    if (!Number.isInteger(warmup) || warmup < 1) throw new UsageError("--warmup must be a positive integer");
    const query = await readQueryArg(positionals[0]);

    let universe: Instrument[];
    let compiled: CompiledQuery | undefined;
    if (flags.has("synthetic")) {
      if (flags.has("db")) throw new UsageError("--synthetic uses no database; drop --db");
      compiled = compileOrReport(query, { markets: DEFAULT_MARKETS });
      if (!compiled) return 1;
      const { plan } = compiled;
      const bars = Math.max(...plan.sources.map((s) => fetchCount(s.minLookback, warmup))) + 1;
      universe = syntheticUniverse({
        market: plan.market,
        symbols: SYNTHETIC_SYMBOLS[plan.market] ?? 0,
        timeframes: plan.sources.map((s) => s.timeframe),
        bars,
      });
    } else {
      const store = await openStore(databasePath(flags.get("db")));
      try {
        compiled = compileOrReport(query, { markets: await marketsOf(store) });
        if (!compiled) return 1;
        await seedOnFirstUse(store);
        universe = await fetchUniverse(store, compiled.plan, { warmup, fetch: compiled.fetch });
      } finally {
        await store.close();
      }
    }
    printResult(compiled.run(universe), format);
    return 0;
  },
};
