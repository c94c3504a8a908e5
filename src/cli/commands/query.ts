/**
 * `xql validate [FILE|-]` and `xql explain [FILE|-]`: the bodies of POST /xql/validate and
 * /xql/explain on standard output, exactly as the service sends them.
 */
import type { Command } from "../command.js";
import { UsageError, formatOption, optionsHelp, parseCommandLine, pick, positiveInteger, readQueryArg } from "../command.js";
import { explain, validate } from "../../api.js";
import type { XqlOptions } from "../../types.js";
import { renderCsv, reportQueryError } from "../report.js";
import { renderTable } from "../table.js";

const OPTIONS = pick("format", "ceiling", "markets");
const OPTIONS_HELP = optionsHelp(OPTIONS);

const validateHelp = `Usage: xql validate [FILE|-] [--format json|table|csv] [--ceiling N] [--markets A,B]

Checks that a query (from FILE, or standard input for - or no FILE) is well-formed and
plannable, touching no data. Prints the body of POST /xql/validate:
  {"valid":true}                                               exit 0
  {"valid":false,"error":{"type":...,"message":...,"position":...}}   exit 1
With --format table or csv (or when standard error is a terminal) an error also shows the
source line with a caret under the mistake on standard error.

${OPTIONS_HELP}

Examples:
  xql validate examples/oversold.xql
  printf 'market = "FOREX"\\ntimeframe = h1\\nrsi(14) < 30' | xql validate
  xql validate screen.xql --ceiling 500 --markets NYSE,NASDAQ
`;

const explainHelp = `Usage: xql explain [FILE|-] [--format json|table|csv] [--ceiling N] [--markets A,B]

Prints the data requirements (plan) and the mechanical explanation of a query (from FILE,
or standard input for - or no FILE): the body of POST /xql/explain,
  {"plan":{"market":...,"sources":[{"timeframe":...,"series":[...],"minLookback":...}]},"explanation":...}
and exits 0; on a query error prints {"valid":false,"error":{...}} and exits 1.
--format table prints the sources as a table and the explanation below it; csv prints the
sources (timeframe, series, minLookback).

${OPTIONS_HELP}

Examples:
  xql explain examples/oversold.xql
  echo 'market = "CRYPTO" timeframe = h4 close >= w::highest(high, 52)' | xql explain -
`;

function optionsFrom(name: string, values: { ceiling?: string; markets?: string }): XqlOptions {
  const options: { markets?: string[]; lookbackCeiling?: number } = {};
  const ceiling = positiveInteger(name, "ceiling", values.ceiling);
  if (ceiling !== undefined) options.lookbackCeiling = ceiling;
  if (values.markets !== undefined) {
    const list = values.markets.split(",").map((m) => m.trim()).filter((m) => m.length > 0);
    if (list.length === 0) throw new UsageError(`xql ${name}: --markets needs at least one market, as in --markets FOREX,CRYPTO`);
    options.markets = list;
  }
  return options;
}

export const validateCommand: Command = {
  name: "validate",
  summary: "Check a query without touching data; print the validate body",
  help: validateHelp,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("validate", args, OPTIONS, 1);
    const format = formatOption("validate", values.format);
    const options = optionsFrom("validate", values);
    const query = await readQueryArg(positionals[0], io);
    const body = validate(query, options);
    if (!body.valid) {
      reportQueryError(io, body, query, positionals[0], format);
      return 1;
    }
    io.stdout.write(format === "json" ? `${JSON.stringify(body)}\n` : format === "csv" ? "valid\ntrue\n" : "valid\n");
    return 0;
  },
};

export const explainCommand: Command = {
  name: "explain",
  summary: "Print a query's plan and explanation (the explain body)",
  help: explainHelp,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("explain", args, OPTIONS, 1);
    const format = formatOption("explain", values.format);
    const options = optionsFrom("explain", values);
    const query = await readQueryArg(positionals[0], io);
    const body = explain(query, options);
    if ("valid" in body) {
      reportQueryError(io, body, query, positionals[0], format);
      return 1;
    }
    if (format === "json") {
      io.stdout.write(`${JSON.stringify(body)}\n`);
      return 0;
    }
    const rows = body.plan.sources.map((s) => [s.timeframe, s.series.join(" "), String(s.minLookback)]);
    if (format === "csv") {
      io.stdout.write(renderCsv(["timeframe", "series", "minLookback"], rows));
      return 0;
    }
    io.stdout.write(`market: ${body.plan.market}\n`);
    io.stdout.write(renderTable(["timeframe", "series", "minLookback"], rows, [false, false, true]));
    io.stdout.write(`\n${body.explanation.endsWith("\n") ? body.explanation : `${body.explanation}\n`}`);
    return 0;
  },
};
