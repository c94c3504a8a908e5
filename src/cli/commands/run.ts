/**
 * `xql run [FILE|-]`: runs a query over the embedded store (seeded on first use), or over an
 * in-memory synthetic universe with `--synthetic`. JSON output is exactly the HTTP body.
 */
import type { CliIo, Command } from "../command.js";
import { QUERY_LIMIT_OPTIONS, UsageError, formatOption, optionsHelp, parseCommandLine, pick, positiveInteger, readQueryArg } from "../command.js";
import type { CompiledQuery } from "../../api.js";
import { DEFAULT_WARMUP, fetchCount, fetchUniverse } from "../../store/fetch.js";
import { syntheticUniverse } from "../../synthetic/synthetic.js";
import { CRYPTO_SYMBOLS, FOREX_SYMBOLS } from "../../synthetic/symbols.js";
import type { Instrument, XqlOptions } from "../../types.js";
import { DEFAULT_MARKETS } from "../../types.js";
import { compileOrReport, renderRunResult } from "../report.js";
import { priceDecimals } from "../table.js";
import type { Format } from "../command.js";

const OPTIONS = { ...pick("format", "db", "synthetic"), ...QUERY_LIMIT_OPTIONS };

const help = `Usage: xql run [FILE|-] [--format json|table|csv] [--db FILE|URL] [--ceiling N] [--warmup-ceiling N]
       xql run [FILE|-] --synthetic [--format json|table|csv]

Runs a query (from FILE, or standard input for - or no FILE) and prints the matches.

By default the bars come from the embedded store, exactly as the service reads them:
the latest max(minLookback, warm-up) bars of every symbol of the query's market. An empty
store is seeded with the synthetic FOREX and CRYPTO universe first (once).

With --synthetic no database is used: the query runs over the deterministic in-memory
synthetic universe of its market.

Output: --format json (default) prints {"results": [...]}, the body of POST /xql/run;
table prints a table for people; csv prints symbol and the columns, one row per match.
A query error prints the 400 body {"valid": false, "error": {...}} on standard output
(with json) and the source line with a caret under the mistake on standard error (with
table or csv, or when standard error is a terminal); the exit code is 1.

${optionsHelp(OPTIONS)}

Example:
  xql run examples/oversold.xql --format table
`;

const SYNTHETIC_SYMBOLS: Record<string, number> = { FOREX: FOREX_SYMBOLS.length, CRYPTO: CRYPTO_SYMBOLS.length };


export const runCommand: Command = {
  name: "run",
  summary: "Run a query over the embedded store (or --synthetic data) and print the matches",
  help,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("run", args, OPTIONS, 1);
    const format = formatOption("run", values.format);
    const lookbackCeiling = positiveInteger("run", "ceiling", values.ceiling);
    const warmupCeiling = positiveInteger("run", "warmup-ceiling", values["warmup-ceiling"]);
    // The floor of 300 bars per source is cut too when the ceiling is lower.
    const warmup = Math.min(DEFAULT_WARMUP, warmupCeiling ?? DEFAULT_WARMUP);
    const limits = { ...(lookbackCeiling === undefined ? {} : { lookbackCeiling }), ...(warmupCeiling === undefined ? {} : { warmupCeiling }) };
    const file = positionals[0];
    const query = await readQueryArg(file, io);

    let universe: Instrument[];
    let compiled: CompiledQuery | undefined;
    if (values.synthetic) {
      if (values.db !== undefined) throw new UsageError("xql run: --synthetic uses no database; drop --db");
      compiled = compileOrReport(io, query, file, format, { markets: DEFAULT_MARKETS, ...limits });
      if (!compiled) return 1;
      const { plan } = compiled;
      const bars = Math.max(...compiled.fetch.map((s) => fetchCount(s.bars, warmup))) + 1;
      universe = syntheticUniverse({
        market: plan.market,
        symbols: SYNTHETIC_SYMBOLS[plan.market] ?? 0,
        timeframes: plan.sources.map((s) => s.timeframe),
        bars,
      });
    } else {
      // Loaded only here: --synthetic runs without the database packages (better-sqlite3, pg).
      const { databasePath, marketsOf, openStore, seedOnFirstUse } = await import("../store.js");
      const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
      try {
        compiled = compileOrReport(io, query, file, format, { markets: await marketsOf(store), ...limits });
        if (!compiled) return 1;
        await seedOnFirstUse(store, io.stderr);
        universe = await fetchUniverse(store, compiled.plan, { warmup, fetch: compiled.fetch });
      } finally {
        await store.close();
      }
    }
    const result = compiled.run(universe);
    const base = compiled.plan.sources[0]?.timeframe;
    const shown = new Set(result.results.map((row) => row.symbol));
    const decimals = new Map(
      format === "table" && base !== undefined
        ? universe.filter((i) => shown.has(i.symbol)).map((i) => [i.symbol, priceDecimals(i.bars[base])] as const)
        : [],
    );
    io.stdout.write(renderRunResult(result, format, decimals));
    return 0;
  },
};
