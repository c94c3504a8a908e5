/**
 * `xql why FILE --symbol S [--at TIME]`: why a symbol matches the screen at a bar, or not
 * (decisions §11), over the embedded store: the tree `POST /xql/why` answers, as JSON or as an
 * indented tree for people (✓/✗ per condition, each number as `xql run --format table` prints it).
 */
import type { Command } from "../command.js";
import { QUERY_LIMIT_OPTIONS, UsageError, optionsHelp, parseCommandLine, pick, readQueryArg } from "../command.js";
import { compileOrReport } from "../report.js";
import { localWatchlists, screenLimits } from "../screen-bars.js";
import { formatNumber, priceDecimals } from "../table.js";
import type { WhyNode, WhyResult } from "../../eval/why.js";
import { MAX_HISTORY_BARS, TIMEFRAME_MS } from "../../types.js";

const OPTIONS = {
  symbol: { type: "string", value: "S", description: "the symbol asked about (required)" },
  at: { type: "string", value: "TIME", description: "the base bar: ISO 8601 or ms since epoch (default the latest bar; at most 1000 bars back)" },
  ...pick("db"),
  format: { type: "string", value: "table|json", description: "output: table (default) or json (the body of POST /xql/why)" },
  ...QUERY_LIMIT_OPTIONS,
} as const;

const help = `Usage: xql why [FILE|-] --symbol S [--at TIME] [--format table|json] [--db FILE|URL]

Why does a symbol match the screen (from FILE, or standard input for - or no FILE) at a bar,
or not? Prints the condition part by part with its value at that bar: ✓ or ✗ for each
condition, the value of each number, a let name with its definition under it, and for a
part read at another bar (d::..., an offset [k]) the bar it read. The values are exactly
the ones xql run computes at that bar (xql history's at an earlier one). A part that is
undefined there (warm-up, NaN) shows "-". See docs/why.md.

${optionsHelp(OPTIONS)}

Example:
  xql why examples/oversold.xql --symbol EURUSD
`;

const iso = (ms: number): string => new Date(ms).toISOString().replace("T", " ").replace(/:00\.000Z$/, "").replace(/\.000Z$/, "");

/** The tree for people: one line a part, indented under its parent. */
export function whyText(why: WhyResult, decimals = 0): string {
  const lines: string[] = [`${why.symbol} at ${iso(why.time)} UTC: ${why.matched ? "matches" : "does not match"}`];
  const walk = (node: WhyNode, depth: number): void => {
    const pad = "  ".repeat(depth);
    const at = node.time === undefined ? "" : `  (bar of ${iso(node.time)} UTC)`;
    if (typeof node.value === "boolean") lines.push(`${pad}${node.value ? "✓" : "✗"} ${node.expr}${at}`);
    else if (node.value === null && node.children && node.children.length > 0 && !isNumberLet(node)) lines.push(`${pad}- ${node.expr}  (undefined)${at}`);
    else lines.push(`${pad}  ${node.expr} = ${formatNumber(typeof node.value === "number" ? node.value : null, decimals)}${at}`);
    for (const child of node.children ?? []) walk(child, depth + 1);
  };
  walk(why.tree, 0);
  const columns = Object.entries(why.columns);
  if (columns.length > 0) lines.push(`columns: ${columns.map(([k, v]) => `${k} = ${formatNumber(v, decimals)}`).join(", ")}`);
  return `${lines.join("\n")}\n`;
}

/** A `let` of a number: its one child is its definition, not an operand. */
function isNumberLet(node: WhyNode): boolean {
  return node.children?.length === 1 && typeof node.children[0]!.value !== "boolean" && !node.expr.startsWith("not ");
}

export const whyCommand: Command = {
  name: "why",
  summary: "Show why a symbol matches a screen at a bar, or not, part by part",
  help,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("why", args, OPTIONS, 1);
    const format = values.format ?? "table";
    if (format !== "table" && format !== "json") throw new UsageError(`xql why: --format must be table or json, got '${format}'`);
    const symbol = values.symbol;
    if (symbol === undefined || symbol === "") throw new UsageError("xql why needs --symbol S");
    const at = values.at === undefined ? undefined : /^\d+$/.test(values.at) ? Number(values.at) : Date.parse(values.at);
    if (at !== undefined && !Number.isFinite(at)) throw new UsageError(`xql why: --at must be ISO 8601 or ms since epoch, got '${values.at}'`);
    const limits = screenLimits("run", values);
    const file = positionals[0];
    const query = await readQueryArg(file, io);
    const { databasePath, marketsOf, openStore, seedOnFirstUse } = await import("../store.js");
    const { fetchAnchored } = await import("../../fetch/fetch.js");
    const { whyAnchored } = await import("../../api.js");
    const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
    try {
      const compiled = compileOrReport(io, query, file, format === "json" ? "json" : "table", { markets: await marketsOf(store), ...limits.options, watchlists: await localWatchlists(store) });
      if (!compiled) return 1;
      await seedOnFirstUse(store, io.stderr);
      const base = compiled.plan.sources[0]!.timeframe;
      // The symbol's series alone, back to the bar asked: the service's why reads the same.
      const back = at === undefined ? 0 : Math.min(MAX_HISTORY_BARS, Math.max(0, Math.ceil((Date.now() - at) / TIMEFRAME_MS[base]) + 1));
      const universe = await fetchAnchored(store, compiled.plan, { warmup: limits.warmup, fetch: compiled.fetch, anchorSources: compiled.fetch, symbols: [symbol], bars: back + 1 });
      const instrument = universe.find((i) => i.symbol === symbol);
      const times = instrument?.bars[base]?.time;
      if (!instrument || !times || times.length === 0 || (at !== undefined && times[0]! > at)) {
        io.stderr.write(`xql why: No bars for ${symbol} on ${compiled.plan.market} ${base}\n`);
        return 1;
      }
      const why = whyAnchored(compiled, instrument, at);
      io.stdout.write(format === "json" ? `${JSON.stringify(why)}\n` : whyText(why, priceDecimals(instrument.bars[base])));
      return 0;
    } finally {
      await store.close();
    }
  },
};
