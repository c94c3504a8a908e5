/**
 * `xql data seed|import|status|delete|sync`: fill, inspect, prune and keep current the store's
 * bars. Every action parses its own option table strictly (`parseCommandLine`) and talks only
 * through the command's {@link CliIo}, so the tests run it in-process.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import type { CliIo, Command, OptionTable } from "../command.js";
import { CliError, UsageError, fileProblem, optionsHelp, parseCommandLine, pick, positiveInteger } from "../command.js";
import { closest, unknownTimeframeMessage } from "../../suggest.js";
import { CsvImportError, normalizeMarket, parseTime } from "../../ingest/csv.js";
import { importBars } from "../../ingest/importer.js";
import { IMPORT_FORMATS, type ImportFormat, type TimeFormat } from "../../ingest/formats.js";
import { SEED_BARS, seedStore } from "../../synthetic/seed.js";
import { TIMEFRAMES, isTimeframe } from "../../types.js";
import { progressBar } from "../progress.js";
import { databasePath, openStore, openStoreForWriting } from "../store.js";
import { renderTable } from "../table.js";
import { XqlDataError, assertNever } from "../../errors.js";
import { IMPORT_OPTION_CODES } from "../../ingest/errors.js";
import { SYNC_HELP, SYNC_OPTIONS, syncAction } from "./data-sync.js";

/** The options only `xql data` takes (`format` means the file format for import, the output for status). */
const DATA_OPTIONS = {
  market: { type: "string", value: "M", description: "market name (stored in upper case), e.g. FOREX, CRYPTO" },
  symbol: { type: "string", value: "S", description: "import: the symbol of every row, for formats without a symbol column; delete: the symbol whose bars go" },
  tz: { type: "string", value: "ZONE", description: "source time zone: UTC, EST, +02:00, or an IANA name like Europe/Athens" },
  format: { type: "string", value: "F", description: `import: force a format (${IMPORT_FORMATS.join(" ")}); status: table or json` },
  columns: { type: "string", value: "C,...", description: "generic CSV columns in order: symbol time open high low close volume, - to skip" },
  "time-format": { type: "string", value: "iso|s|ms|us", description: "generic CSV times: iso (default; also plain ms), s, ms or us" },
  bars: { type: "string", value: "N", description: `bars per symbol and timeframe for seed (default ${SEED_BARS})` },
  from: { type: "string", value: "TIME", description: "delete only bars opening at or after TIME (ms since the epoch or ISO 8601)" },
} as const satisfies OptionTable;

const data = (...names: (keyof typeof DATA_OPTIONS)[]): OptionTable => Object.fromEntries(names.map((n) => [n, DATA_OPTIONS[n]]));

/** Each action's options (the deploy files are checked against them). */
export const DATA_ACTION_OPTIONS = {
  seed: { ...data("bars"), ...pick("db") },
  import: { ...data("market"), timeframe: SYNC_OPTIONS.timeframe, ...data("symbol", "tz", "format", "columns", "time-format"), ...pick("db") },
  status: { ...data("format"), ...pick("db") },
  delete: { ...data("symbol", "from", "market"), timeframe: SYNC_OPTIONS.timeframe, ...pick("db") },
  sync: SYNC_OPTIONS,
} as const satisfies Record<string, OptionTable>;

type Action = keyof typeof DATA_ACTION_OPTIONS;
type Values = Record<string, string | boolean | undefined>;

const help = `Usage:
  xql data seed [--bars N] [--db FILE|URL]
  xql data import FILE|- --market M [--timeframe TF] [--symbol S] [--tz ZONE]
                  [--format F] [--columns C,...] [--time-format iso|s|ms|us] [--db FILE|URL]
  xql data status [--format table|json] [--db FILE|URL]
  xql data delete --symbol S [--from TIME] [--market M] [--timeframe TF] [--db FILE|URL]
  xql data sync EXCHANGE (--symbols A/B,C/D | --quote Q [--top N]) [--timeframe TF]
                [--since DATE|30d] [--until DATE|30d | --follow] [--api-url URL] [--db FILE|URL]
  xql data sync oanda|dukascopy [--symbols EUR_USD,...] [--price bid|ask|mid] [--live]
                [--timeframe TF] [--since DATE|30d] [--until DATE|30d | --follow] [--api-url URL]

Fill the embedded store with bars. \`xql serve\` and \`xql run\` seed an empty store by
themselves; these commands refresh or add data.

  seed     Writes the deterministic synthetic FOREX and CRYPTO universe at every timeframe
           (${TIMEFRAMES.join(" ")}), ${SEED_BARS} bars each, ending now. Synthetic symbols are
           replaced whole; other data stays.
  import   Reads a file of bars for one market and timeframe, detecting its format and
           saying which it took (.gz files and - for standard input too):
             xql CSV     symbol,time,open,high,low,close,volume (header optional; time in ms
                         or ISO 8601, UTC unless an offset is given)
             Binance     kline dumps (12 columns, no header, open time in ms or µs); symbol
                         and timeframe from a name like BTCUSDT-1h-2026-01.csv
             MetaTrader  history exports <DATE> <TIME> <OPEN> ... (tab or comma, 2026.01.02
                         dates), times in UTC unless --tz says otherwise
             HistData    ASCII 20260102 000000;open;high;low;close;volume, times in EST
                         without daylight saving (UTC-05:00) unless --tz says otherwise
             generic     any other layout with --columns and --time-format
           Every row is checked first (finite numbers, high >= max(open, close), low <=
           min(open, close), volume >= 0, time on a bar boundary of the timeframe); the first
           bad line is reported with its number and nothing is written. Rows are upserts:
           importing a file twice leaves the same bars. Coarser timeframes not imported are
           derived from the finest imported one (h1 bars give h4, d and w).
           Times must lie between 1970 and 2 days from now; prices between 1e-12 and
           1e12, volume at most 1e18.
  status   What the store holds, per market and timeframe: symbols, bars, first and last
           bar, whether the bars are imported or derived, and the feed that synced them
           (source, price side, last sync).
  delete   Removes a symbol's bars: all of them, or those opening at or after --from
           (ms since the epoch or ISO 8601), in every market and timeframe unless
           --market or --timeframe narrow it. Prints how many bars went.
${SYNC_HELP}
A progress bar is drawn on standard error when it is a terminal.

${optionsHelp({ ...DATA_OPTIONS, ...SYNC_OPTIONS, ...pick("db") })}
`;

/** `--timeframe`, checked: an unknown one names the timeframe meant (\`1h\` → \`h1\`). */
function timeframeOption(text: string | undefined): (typeof TIMEFRAMES)[number] | undefined {
  if (text === undefined) return undefined;
  if (!isTimeframe(text)) throw new UsageError(unknownTimeframeMessage(text, TIMEFRAMES));
  return text;
}

async function seed(values: Values, io: CliIo): Promise<number> {
  const bars = positiveInteger("data seed", "bars", values.bars as string | undefined) ?? SEED_BARS;
  const store = await openStore(databasePath(values.db as string | undefined, io.env, io.cwd), io.stderr);
  try {
    const progress = progressBar("Seeding", io.stderr);
    const started = Date.now();
    const written = await seedStore(store, { bars, onProgress: progress.update });
    progress.done();
    io.stdout.write(
      `Seeded ${written.toLocaleString("en-US")} bars (FOREX and CRYPTO, ${TIMEFRAMES.length} timeframes, ${bars} bars each) into ${store.file} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function importFile(positionals: string[], values: Values, io: CliIo): Promise<number> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) throw new UsageError("data import needs exactly one FILE (or - for standard input)");
  const market = values.market as string | undefined;
  if (market === undefined) throw new UsageError("data import needs --market M");
  const timeframe = timeframeOption(values.timeframe as string | undefined);
  const format = values.format as string | undefined;
  if (format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    const meant = closest(format, IMPORT_FORMATS);
    throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(" ")}${meant ? ` (did you mean '${meant}'?)` : ""}`);
  }
  const timeFormat = values["time-format"] as string | undefined;
  if (timeFormat !== undefined && !["iso", "s", "ms", "us"].includes(timeFormat)) throw new UsageError("--time-format must be iso, s, ms or us");
  const columns = (values.columns as string | undefined)?.split(",").map((c) => c.trim());
  const path = file === "-" ? "-" : resolve(io.cwd, file);
  const shown = file === "-" ? "standard input" : file;
  if (path !== "-") {
    // Checked before the store is opened (or created): "no such file: bars.csv", not "ENOENT: ..., stat '/abs/bars.csv'".
    let directory: boolean;
    try {
      directory = (await stat(path)).isDirectory();
    } catch (error) {
      throw new CliError(fileProblem(file, error));
    }
    if (directory) throw new CliError(fileProblem(file, { code: "EISDIR" }));
  }
  const opened = await openStoreForWriting(databasePath(values.db as string | undefined, io.env, io.cwd), io.stderr);
  const store = opened.store;
  let wrote = false;
  const reading = progressBar("Reading ", io.stderr);
  const writing = progressBar("Writing ", io.stderr);
  try {
    const result = await importBars(store, path, {
      market,
      timeframe,
      symbol: values.symbol as string | undefined,
      tz: values.tz as string | undefined,
      format: format as ImportFormat | undefined,
      columns,
      timeFormat: timeFormat as TimeFormat | undefined,
      stdin: file === "-" ? Readable.from(io.stdin) : undefined,
      onRead: (bytes, size, rows) => reading.update(size > 0 ? bytes : rows, size > 0 ? size : rows, rows),
      onWrite: (done, total) => {
        reading.done();
        writing.update(done, total);
      },
    });
    writing.done();
    wrote = result.bars > 0;
    io.stderr.write(`xql data import: read ${shown} as ${result.formatDescription}\n`);
    io.stdout.write(
      `Imported ${result.bars.toLocaleString("en-US")} ${result.timeframe} bars of ${result.symbols} symbol${result.symbols === 1 ? "" : "s"} into market ${result.market} (${store.file})\n`,
    );
    return 0;
  } catch (error) {
    reading.done();
    writing.done();
    if (error instanceof CsvImportError) {
      io.stderr.write(`xql data import: ${shown}: ${error.message}; nothing was written\n`);
      return 1;
    }
    // The file went away or could not be read after the check above.
    if (typeof (error as { syscall?: unknown }).syscall === "string") throw new CliError(fileProblem(file, error));
    if (error instanceof XqlDataError && IMPORT_OPTION_CODES.has(error.code)) {
      throw new UsageError(error.message);
    }
    throw error;
  } finally {
    await opened.finish(wrote);
  }
}

/** One line of `xql data status`: a market and timeframe with what it holds. */
export interface StatusRow {
  market: string;
  timeframe: string;
  symbols: number;
  bars: number;
  /** ISO 8601 open time of the oldest bar. */
  firstTime: string;
  /** ISO 8601 open time of the latest bar. */
  lastTime: string;
  /** `imported`, `derived`, or `mixed` when some symbols import the timeframe and others derive it. */
  source: "imported" | "derived" | "mixed";
  /** The feeds that synced these series (`xql data sync`): source, price side, symbols, and the last sync (ISO 8601). */
  feeds: { source: string; price: string; symbols: number; lastSync: string }[];
}

async function status(values: Values, io: CliIo): Promise<number> {
  const format = (values.format as string | undefined) ?? "table";
  if (format !== "table" && format !== "json") throw new UsageError("--format must be table or json");
  const store = await openStore(databasePath(values.db as string | undefined, io.env, io.cwd), io.stderr);
  try {
    const series = await store.series();
    const groups = new Map<string, { market: string; timeframe: string; symbols: number; bars: number; first: number; last: number; imported: number; derived: number }>();
    for (const s of series) {
      const key = `${s.market}\u0000${s.timeframe}`;
      const group = groups.get(key) ?? { market: s.market, timeframe: s.timeframe, symbols: 0, bars: 0, first: Infinity, last: -Infinity, imported: 0, derived: 0 };
      group.symbols++;
      group.bars += s.bars;
      group.first = Math.min(group.first, s.firstTime);
      group.last = Math.max(group.last, s.lastTime);
      if (s.derived) group.derived++;
      else group.imported++;
      groups.set(key, group);
    }
    // Where the bars came from: per market and timeframe, each feed with its symbols and last sync.
    const feeds = new Map<string, Map<string, { source: string; price: string; symbols: number; last: number }>>();
    for (const f of await store.feeds()) {
      const key = `${f.market}\u0000${f.timeframe}`;
      const byFeed = feeds.get(key) ?? new Map();
      const feed = byFeed.get(`${f.source} ${f.price}`) ?? { source: f.source, price: f.price, symbols: 0, last: 0 };
      feed.symbols++;
      feed.last = Math.max(feed.last, f.syncedAt);
      byFeed.set(`${f.source} ${f.price}`, feed);
      feeds.set(key, byFeed);
    }
    const order = (tf: string): number => (TIMEFRAMES as readonly string[]).indexOf(tf);
    const rows: StatusRow[] = [...groups.values()]
      .sort((a, b) => (a.market < b.market ? -1 : a.market > b.market ? 1 : 0) || order(a.timeframe) - order(b.timeframe))
      .map((g) => ({
        market: g.market,
        timeframe: g.timeframe,
        symbols: g.symbols,
        bars: g.bars,
        firstTime: isoOrMs(g.first),
        lastTime: isoOrMs(g.last),
        source: g.derived === 0 ? "imported" : g.imported === 0 ? "derived" : "mixed",
        feeds: [...(feeds.get(`${g.market}\u0000${g.timeframe}`)?.values() ?? [])].map((f) => ({ source: f.source, price: f.price, symbols: f.symbols, lastSync: isoOrMs(f.last) })),
      }));
    const dataVersion = await store.dataVersion();
    if (format === "json") {
      io.stdout.write(`${JSON.stringify({ database: store.file, dataVersion, series: rows })}\n`);
      return 0;
    }
    if (rows.length === 0) {
      io.stdout.write(`${store.file} holds no bars. Run \`xql data seed\` or \`xql data import\`.\n`);
      return 0;
    }
    const minute = (iso: string): string => (iso.includes("T") ? iso.slice(0, 16).replace("T", " ") : `${iso} (ms)`);
    io.stdout.write(`${store.file} (data version ${dataVersion})\n`);
    io.stdout.write(
      renderTable(
        ["market", "timeframe", "symbols", "bars", "first bar (UTC)", "latest bar (UTC)", "source", "feed, last sync (UTC)"],
        rows.map((r) => [r.market, r.timeframe, String(r.symbols), r.bars.toLocaleString("en-US"), minute(r.firstTime), minute(r.lastTime), r.source, feedCell(r, minute)]),
        [false, false, true, true, false, false, false, false],
      ),
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function deleteBars(values: Values, io: CliIo): Promise<number> {
  const symbol = values.symbol as string | undefined;
  if (symbol === undefined || symbol === "") throw new UsageError("data delete needs --symbol S");
  const fromText = values.from as string | undefined;
  let from: number | undefined;
  if (fromText !== undefined) {
    const parsed = parseTime(fromText);
    if (typeof parsed === "string") throw new UsageError(`--from: ${parsed}`);
    from = parsed;
  }
  const timeframe = timeframeOption(values.timeframe as string | undefined);
  const marketText = values.market as string | undefined;
  const market = marketText === undefined ? undefined : normalizeMarket(marketText);
  const store = await openStore(databasePath(values.db as string | undefined, io.env, io.cwd), io.stderr);
  try {
    const deleted = await store.deleteBars({ symbol, market, timeframe, from });
    const scope = [market && `market ${market}`, timeframe && `timeframe ${timeframe}`, from !== undefined && `from ${fromText}`]
      .filter(Boolean)
      .join(", ");
    io.stdout.write(
      `Deleted ${deleted.toLocaleString("en-US")} bar${deleted === 1 ? "" : "s"} of ${symbol}${scope ? ` (${scope})` : ""} from ${store.file}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** `oanda bid 2026-12-06 00:40`; with several feeds, how many symbols each (`oanda bid ×20, dukascopy bid ×8`) and the latest sync. */
function feedCell(row: StatusRow, minute: (iso: string) => string): string {
  if (row.feeds.length === 0) return "";
  const last = row.feeds.reduce((max, f) => (f.lastSync > max ? f.lastSync : max), row.feeds[0]!.lastSync);
  const names = row.feeds.map((f) => `${f.source} ${f.price}${row.feeds.length > 1 || f.symbols < row.symbols ? ` ×${f.symbols}` : ""}`);
  return `${names.join(", ")} ${minute(last)}`;
}

/** ISO 8601, or the number of ms for a time no Date can show (stored before bounds existed). */
function isoOrMs(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

/** The positional arguments each action takes. */
const POSITIONALS: Readonly<Record<Action, number>> = { seed: 0, import: 1, status: 0, delete: 0, sync: 1 };

export const dataCommand: Command = {
  name: "data",
  summary: "Seed, import (CSV, Binance, MetaTrader, HistData), sync from an exchange, OANDA or Dukascopy, inspect and delete the store's bars",
  help,
  async run(args, io) {
    const [action, ...rest] = args;
    if (action === undefined) throw new UsageError("xql data needs an action: seed, import, status, delete or sync");
    if (!Object.hasOwn(DATA_ACTION_OPTIONS, action)) {
      const meant = closest(action, Object.keys(DATA_ACTION_OPTIONS));
      throw new UsageError(`xql data: unknown action '${action}'${meant ? `, did you mean '${meant}'?` : ""} Use seed, import, status, delete or sync.`);
    }
    const name = action as Action;
    const { values, positionals } = parseCommandLine(`data ${name}`, rest, DATA_ACTION_OPTIONS[name], POSITIONALS[name]);
    switch (name) {
      case "seed":
        return seed(values, io);
      case "import":
        return importFile(positionals, values, io);
      case "status":
        return status(values, io);
      case "delete":
        return deleteBars(values, io);
      case "sync":
        return syncAction(positionals, values, io);
      default:
        return assertNever(name, "data action");
    }
  },
};
