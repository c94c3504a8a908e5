/**
 * `xql watch FILE [--format table|json]`: an alert in the terminal (decisions §7). The same
 * evaluation as the service's alerts against the local store, as bars arrive from another
 * process (`xql data sync --follow`, `xql data import`, pushes to `xql serve`) or close by the
 * clock: one line per symbol that starts or stops matching. Nothing is saved: the state is the
 * matching at the latest closed bar when the command starts.
 */
import type { Command } from "../command.js";
import { CliError, QUERY_LIMIT_OPTIONS, UsageError, optionsHelp, parseCommandLine, pick, positiveInteger, readQueryArg } from "../command.js";
import { compileOrReport } from "../report.js";
import { localWatchlists } from "../screen-bars.js";
import { formatColumnValue } from "../../precision.js";
import type { ColumnKind } from "../../functions/module.js";
import { DEFAULT_WARMUP } from "../../fetch/fetch.js";
import type { MatchRow } from "../../alerts/alerts.js";
import { type EvaluatedBar, baselineOf, evaluateGroup } from "../../alerts/evaluate.js";
import { CarryStore } from "../../eval/carry.js";
import { systemClock } from "../../clock.js";
import { RoundScheduler } from "../../alerts/schedule.js";
import { messageOf } from "../../errors.js";

const OPTIONS = { ...pick("format", "db"), ...QUERY_LIMIT_OPTIONS };

const help = `Usage: xql watch FILE|- [--format table|json] [--db FILE|URL] [--ceiling N] [--warmup-ceiling N]

Watches a screen (the query in FILE, or standard input for -) on the local store and prints
one line per symbol that starts (enter) or stops (exit) matching, each time a base bar of the
query's market and timeframe closes: bars written by another process (xql data sync --follow,
xql data import, POST /xql/bars to xql serve) or a stored bar in progress that the clock
closes. The evaluation is the service's alerts' (docs/alerts.md): exactly the screen's history
at that bar. It starts from the symbols matching at the latest closed bar (printed on
standard error) and runs until Ctrl-C.

Output: --format table (default) prints "time  enter|exit  symbol  column values" for people;
--format json prints one JSON object per event (NDJSON):
  {"time": <bar open, ms>, "timeframe": "h1", "symbol": "...", "kind": "enter"|"exit", "columns": {...}}
An exit carries the values the symbol last matched with.

${optionsHelp(OPTIONS)}

Example:
  xql data sync binance --quote USDT --top 50 --timeframe h1 --follow &
  xql watch examples/oversold.xql
`;

const when = (ms: number): string => `${new Date(ms).toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** One event as a line for people: time, kind, symbol, then each column's value. */
/** An event as a line: each column shown by what it holds, as `xql run`'s table shows it (`formatColumnValue`). */
function tableLine(time: number, event: EvaluatedBar["events"][number], kinds: Readonly<Record<string, ColumnKind>>): string {
  const values = Object.entries(event.columns).map(([name, value]) => `${name}=${formatColumnValue(value, kinds[name] ?? "number")}`);
  return [when(time), event.kind.padEnd(5), event.symbol, ...values].join("  ");
}

function symbols(rows: readonly MatchRow[]): string {
  const list = rows.map((r) => r.symbol);
  return list.length <= 10 ? list.join(" ") : `${list.slice(0, 10).join(" ")} +${list.length - 10}`;
}

export const watchCommand: Command = {
  name: "watch",
  summary: "Print the symbols that start and stop matching a screen as bars close",
  help,
  async run(args, io) {
    const { values, positionals } = parseCommandLine("watch", args, OPTIONS, 1);
    const format = values.format ?? "table";
    if (format !== "table" && format !== "json") throw new UsageError(`xql watch: --format must be table or json, got '${format}'`);
    const file = positionals[0];
    if (file === undefined) throw new UsageError("xql watch needs the query: a FILE, or - for standard input");
    const lookbackCeiling = positiveInteger("watch", "ceiling", values.ceiling);
    const warmupCeiling = positiveInteger("watch", "warmup-ceiling", values["warmup-ceiling"]);
    const warmup = Math.min(DEFAULT_WARMUP, warmupCeiling ?? DEFAULT_WARMUP);
    const query = await readQueryArg(file, io);
    // Loaded here, like run's: the store packages are needed only now.
    const { databasePath, marketsOf, openStore } = await import("../store.js");
    const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
    let scheduler: RoundScheduler | undefined;
    const keepAlive = setInterval(() => undefined, 1 << 30);
    try {
      const compiled = compileOrReport(io, query, file, format, {
        markets: await marketsOf(store),
        // `watchlist = "name"`: the store's local list, as saved when the watch starts.
        watchlists: await localWatchlists(store),
        ...(lookbackCeiling === undefined ? {} : { lookbackCeiling }),
        ...(warmupCeiling === undefined ? {} : { warmupCeiling }),
      });
      if (!compiled) return 1;
      const clock = systemClock;
      // The screen's passes carried from bar to bar: each newly closed bar is one step per indicator per symbol.
      const options = { warmup, carry: new CarryStore() };
      const base = compiled.plan.sources[0]!.timeframe;
      let baseline: { time: number | null; matching: MatchRow[] };
      try {
        baseline = await baselineOf(store, compiled, clock.now(), options);
      } catch (error) {
        throw new CliError(`cannot read ${store.file}: ${messageOf(error)}`);
      }
      const screen = { id: "watch", query, compiled, lastTime: baseline.time, matching: baseline.matching };
      io.stderr.write(
        `xql watch: ${compiled.plan.market} ${base}, ` +
          (baseline.time === null
            ? "no closed bar yet"
            : `${baseline.matching.length} matching at ${when(baseline.time)}${baseline.matching.length > 0 ? ` (${symbols(baseline.matching)})` : ""}`) +
          "; waiting for bars to close (Ctrl-C to stop)\n",
      );
      const stopped = new Promise<number>((resolve) => {
        scheduler = new RoundScheduler({
          bars: store,
          clock,
          round: async () => {
            const { bars, nextClose } = await evaluateGroup(store, [screen], clock.now(), options);
            for (const bar of bars.get(screen.id) ?? []) {
              for (const event of bar.events) {
                io.stdout.write(
                  format === "json"
                    ? `${JSON.stringify({ time: bar.time, timeframe: base, symbol: event.symbol, kind: event.kind, columns: event.columns })}\n`
                    : `${tableLine(bar.time, event, compiled.columnKinds)}\n`,
                );
              }
              screen.lastTime = bar.time;
              screen.matching = bar.matching;
            }
            return nextClose;
          },
          onFailure: (error, retryInMs) => {
            io.stderr.write(`xql watch: cannot read the store (${messageOf(error)}); trying again in ${Math.round(retryInMs / 100) / 10} s\n`);
          },
        });
        io.onStop(() => resolve(0));
      });
      scheduler!.start();
      return await stopped;
    } finally {
      clearInterval(keepAlive);
      await scheduler?.stop();
      await store.close();
    }
  },
};
