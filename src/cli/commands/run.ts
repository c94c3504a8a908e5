/**
 * `xql run [FILE|-]`: runs a query over the embedded store (seeded on first use), or over an
 * in-memory synthetic universe with `--synthetic`. JSON output is exactly the HTTP body.
 */
import type { Command } from "../command.js";
import { QUERY_LIMIT_OPTIONS, formatOption, optionsHelp, parseCommandLine, pick, readQueryArg } from "../command.js";
import { renderRunResult } from "../report.js";
import { compileWithBars, screenLimits } from "../screen-bars.js";
import { priceDecimals } from "../table.js";

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

export const runCommand: Command = {
  name: "run",
  summary: "Run a query over the embedded store (or --synthetic data) and print the matches",
  help,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("run", args, OPTIONS, 1);
    const format = formatOption("run", values.format);
    const limits = screenLimits("run", values);
    const file = positionals[0];
    const query = await readQueryArg(file, io);
    const screen = await compileWithBars("run", io, query, file, format, values, limits);
    if (!screen) return 1;
    const { compiled, universe } = screen;
    const result = await screen.run();
    const base = compiled.plan.sources[0]?.timeframe;
    const shown = new Set(result.results.map((row) => row.symbol));
    // --format table prints prices to the decimals each instrument's bars are quoted in.
    const decimals = new Map(
      format === "table" && base !== undefined
        ? universe.filter((i) => shown.has(i.symbol)).map((i) => [i.symbol, priceDecimals(i.bars[base])] as const)
        : [],
    );
    io.stdout.write(renderRunResult(result, format, decimals, compiled.columnKinds, compiled.plan));
    return 0;
  },
};
