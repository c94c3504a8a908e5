/**
 * `xql validate [FILE|-]` and `xql explain [FILE|-]`: the bodies of POST /xql/validate and
 * /xql/explain on standard output, exactly as the service sends them.
 */
import type { Command } from "../command.js";
import { UsageError, parseFlags, readQueryArg } from "../command.js";
import { explain, validate } from "../../api.js";
import { DEFAULT_LOOKBACK_CEILING, DEFAULT_MARKETS, type XqlOptions } from "../../types.js";

const OPTIONS_HELP = `Options:
  --ceiling N      lookback ceiling in bars (default ${DEFAULT_LOOKBACK_CEILING})
  --markets A,B    known markets, comma-separated (default ${DEFAULT_MARKETS.join(",")})`;

const validateHelp = `Usage: xql validate [FILE|-] [--ceiling N] [--markets A,B]

Checks that a query (from FILE, or standard input for - or no FILE) is well-formed and
plannable, touching no data. Prints the body of POST /xql/validate:
  {"valid":true}                                               exit 0
  {"valid":false,"error":{"type":...,"message":...,"position":...}}   exit 1

${OPTIONS_HELP}

Examples:
  xql validate examples/oversold.xql
  printf 'market = "FOREX"\\ntimeframe = h1\\nrsi(14) < 30' | xql validate
  xql validate screen.xql --ceiling 500 --markets NYSE,NASDAQ
`;

const explainHelp = `Usage: xql explain [FILE|-] [--ceiling N] [--markets A,B]

Prints the data requirements (plan) and the mechanical explanation of a query (from FILE,
or standard input for - or no FILE): the body of POST /xql/explain,
  {"plan":{"market":...,"sources":[{"timeframe":...,"series":[...],"minLookback":...}]},"explanation":...}
and exits 0; on a query error prints {"valid":false,"error":{...}} and exits 1.

${OPTIONS_HELP}

Examples:
  xql explain examples/oversold.xql
  echo 'market = "CRYPTO" timeframe = h4 close >= w::highest(high, 52)' | xql explain -
`;

function optionsFrom(flags: Map<string, string>): XqlOptions {
  const options: { markets?: string[]; lookbackCeiling?: number } = {};
  const ceiling = flags.get("ceiling");
  if (ceiling !== undefined) {
    const value = Number(ceiling);
    if (!/^\d+$/.test(ceiling) || !Number.isSafeInteger(value) || value < 1) throw new UsageError("--ceiling must be a positive integer");
    options.lookbackCeiling = value;
  }
  const markets = flags.get("markets");
  if (markets !== undefined) {
    const list = markets.split(",").map((m) => m.trim()).filter((m) => m.length > 0);
    if (list.length === 0) throw new UsageError("--markets needs at least one market, as in --markets FOREX,CRYPTO");
    options.markets = list;
  }
  for (const name of flags.keys()) {
    if (name !== "ceiling" && name !== "markets") throw new UsageError(`Unknown option --${name}`);
  }
  return options;
}

function queryCommand(name: "validate" | "explain", summary: string, help: string, answer: typeof validate | typeof explain): Command {
  return {
    name,
    summary,
    help,
    async run(args) {
      const { flags, positionals } = parseFlags(args);
      if (positionals.length > 1) throw new UsageError(`${name} takes at most one FILE`);
      const options = optionsFrom(flags);
      const query = await readQueryArg(positionals[0]);
      const body = answer(query, options);
      process.stdout.write(`${JSON.stringify(body)}\n`);
      return "valid" in body && body.valid === false ? 1 : 0;
    },
  };
}

export const validateCommand: Command = queryCommand(
  "validate",
  "Check a query without touching data; print the validate body",
  validateHelp,
  validate,
);

export const explainCommand: Command = queryCommand(
  "explain",
  "Print a query's plan and explanation (the explain body)",
  explainHelp,
  explain,
);
