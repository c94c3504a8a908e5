/** `xql data seed|import|status|delete`: fill, inspect and prune the store's bars. */
import { parseArgs } from "node:util";
import type { Command } from "../command.js";
import { UsageError } from "../command.js";
import { closest } from "../../suggest.js";
import { CsvImportError, normalizeMarket, parseTime } from "../../ingest/csv.js";
import { importBars } from "../../ingest/importer.js";
import { IMPORT_FORMATS, type ImportFormat, type TimeFormat } from "../../ingest/formats.js";
import { SEED_BARS, seedStore } from "../../synthetic/seed.js";
import { TIMEFRAMES, isTimeframe } from "../../types.js";
import { progressBar } from "../progress.js";
import { databasePath, openStore } from "../store.js";
import { renderTable } from "../table.js";

const help = `Usage:
  xql data seed [--bars N] [--db FILE|URL]
  xql data import FILE|- --market M [--timeframe TF] [--symbol S] [--tz ZONE]
                  [--format F] [--columns C,...] [--time-format iso|s|ms|us] [--db FILE|URL]
  xql data status [--format table|json] [--db FILE|URL]
  xql data delete --symbol S [--from TIME] [--market M] [--timeframe TF] [--db FILE|URL]

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
           bar, and whether the bars are imported or derived.
  delete   Removes a symbol's bars: all of them, or those opening at or after --from
           (ms since the epoch or ISO 8601), in every market and timeframe unless
           --market or --timeframe narrow it. Prints how many bars went.

A progress bar is drawn on standard error when it is a terminal.

Options:
  --market M      market name (stored in upper case), e.g. FOREX, CRYPTO
  --timeframe TF  one of ${TIMEFRAMES.join(" ")} (Binance: from the file name when not given)
  --symbol S      the symbol of every row, for formats without a symbol column
  --tz ZONE       source time zone: UTC, EST, +02:00, or an IANA name like Europe/Athens
  --format F      force a format: ${IMPORT_FORMATS.join(" ")} (status: table or json)
  --columns C,... generic CSV columns in order: symbol time open high low close volume, - to skip
  --time-format   generic CSV times: iso (default; also plain ms), s, ms or us
  --bars N        bars per symbol and timeframe for seed (default ${SEED_BARS})
  --symbol S      the symbol whose bars delete removes
  --from TIME     delete only bars opening at or after TIME
  --db FILE|URL   database file (default: $XQL_DB, else ~/.local/share/xql/xql.db), or a
                  PostgreSQL URL (default: $XQL_DATABASE_URL, which wins over $XQL_DB)
`;

function positiveInteger(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer`);
  return value;
}

type Flags = Map<string, string>;

/** The options of each action; parsed strictly (an unknown option is a usage error with a suggestion). */
const OPTIONS = {
  seed: ["bars", "db"],
  import: ["market", "timeframe", "symbol", "tz", "format", "columns", "time-format", "db"],
  status: ["format", "db"],
  delete: ["symbol", "from", "market", "timeframe", "db"],
} as const;

/** Parses `args` with node:util parseArgs in strict mode; an unknown option names the closest known one. */
export function parseDataArgs(action: keyof typeof OPTIONS, args: readonly string[]): { flags: Flags; positionals: string[] } {
  const known = OPTIONS[action];
  const options = Object.fromEntries(known.map((name) => [name, { type: "string" as const }]));
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /Unknown option '(?:--)?([^']+)'/.exec(message);
    if (unknown) {
      const name = unknown[1]!.replace(/^-+/, "");
      const suggestion = closest(name, known);
      throw new UsageError(`Unknown option '--${name}' for data ${action}${suggestion ? `, did you mean '--${suggestion}'?` : ""}`);
    }
    const missing = /Option '(?:-\w, )?--([^ ]+) <value>' argument missing/.exec(message);
    if (missing) throw new UsageError(`Option --${missing[1]} needs a value`);
    throw new UsageError(message);
  }
  const flags: Flags = new Map();
  for (const [name, value] of Object.entries(parsed.values)) if (typeof value === "string") flags.set(name, value);
  return { flags, positionals: parsed.positionals };
}

async function seed(flags: Flags): Promise<number> {
  const bars = positiveInteger(flags.get("bars"), "bars", SEED_BARS);
  const store = await openStore(databasePath(flags.get("db")));
  try {
    const progress = progressBar("Seeding");
    const started = Date.now();
    const written = await seedStore(store, { bars, onProgress: progress.update });
    progress.done();
    process.stdout.write(
      `Seeded ${written.toLocaleString("en-US")} bars (FOREX and CRYPTO, ${TIMEFRAMES.length} timeframes, ${bars} bars each) into ${store.file} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function importFile(positionals: string[], flags: Flags): Promise<number> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) throw new UsageError("data import needs exactly one FILE (or - for standard input)");
  const market = flags.get("market");
  if (market === undefined) throw new UsageError("data import needs --market M");
  const format = flags.get("format");
  if (format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(" ")}`);
  }
  const timeFormat = flags.get("time-format");
  if (timeFormat !== undefined && !["iso", "s", "ms", "us"].includes(timeFormat)) throw new UsageError("--time-format must be iso, s, ms or us");
  const columnsText = flags.get("columns");
  const columns = columnsText?.split(",").map((c) => c.trim());
  const store = await openStore(databasePath(flags.get("db")));
  const reading = progressBar("Reading ");
  const writing = progressBar("Writing ");
  try {
    const result = await importBars(store, file, {
      market,
      timeframe: flags.get("timeframe"),
      symbol: flags.get("symbol"),
      tz: flags.get("tz"),
      format: format as ImportFormat | undefined,
      columns,
      timeFormat: timeFormat as TimeFormat | undefined,
      onRead: (bytes, size, rows) => reading.update(size > 0 ? bytes : rows, size > 0 ? size : rows, rows),
      onWrite: (done, total) => {
        reading.done();
        writing.update(done, total);
      },
    });
    writing.done();
    process.stderr.write(`xql data import: read ${file === "-" ? "standard input" : file} as ${result.formatDescription}\n`);
    process.stdout.write(
      `Imported ${result.bars.toLocaleString("en-US")} ${result.timeframe} bars of ${result.symbols} symbol${result.symbols === 1 ? "" : "s"} into market ${result.market} (${store.file})\n`,
    );
    return 0;
  } catch (error) {
    reading.done();
    writing.done();
    if (error instanceof CsvImportError) {
      process.stderr.write(`xql data import: ${file === "-" ? "standard input" : file}: ${error.message}; nothing was written\n`);
      return 1;
    }
    if (error instanceof Error && !(error instanceof UsageError) && /symbol|time zone|timeframe|--columns|column|format|market/i.test(error.message)) {
      throw new UsageError(error.message);
    }
    throw error;
  } finally {
    await store.close();
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
}

async function status(flags: Flags): Promise<number> {
  const format = flags.get("format") ?? "table";
  if (format !== "table" && format !== "json") throw new UsageError("--format must be table or json");
  const store = await openStore(databasePath(flags.get("db")));
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
      }));
    const dataVersion = await store.dataVersion();
    if (format === "json") {
      process.stdout.write(`${JSON.stringify({ database: store.file, dataVersion, series: rows })}\n`);
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write(`${store.file} holds no bars. Run \`xql data seed\` or \`xql data import\`.\n`);
      return 0;
    }
    const minute = (iso: string): string => (iso.includes("T") ? iso.slice(0, 16).replace("T", " ") : `${iso} (ms)`);
    process.stdout.write(`${store.file} (data version ${dataVersion})\n`);
    process.stdout.write(
      renderTable(
        ["market", "timeframe", "symbols", "bars", "first bar (UTC)", "latest bar (UTC)", "source"],
        rows.map((r) => [r.market, r.timeframe, String(r.symbols), r.bars.toLocaleString("en-US"), minute(r.firstTime), minute(r.lastTime), r.source]),
        [false, false, true, true, false, false, false],
      ),
    );
    return 0;
  } finally {
    await store.close();
  }
}

async function deleteBars(positionals: string[], flags: Map<string, string>): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`data delete takes no file (found '${positionals[0]}')`);
  const symbol = flags.get("symbol");
  if (symbol === undefined || symbol === "") throw new UsageError("data delete needs --symbol S");
  const fromText = flags.get("from");
  let from: number | undefined;
  if (fromText !== undefined) {
    const parsed = parseTime(fromText);
    if (typeof parsed === "string") throw new UsageError(`--from: ${parsed}`);
    from = parsed;
  }
  const timeframe = flags.get("timeframe");
  if (timeframe !== undefined && !isTimeframe(timeframe)) {
    throw new UsageError(`Unknown timeframe '${timeframe}': use one of ${TIMEFRAMES.join(" ")}`);
  }
  const marketText = flags.get("market");
  const market = marketText === undefined ? undefined : normalizeMarket(marketText);
  const store = await openStore(databasePath(flags.get("db")));
  try {
    const deleted = await store.deleteBars({ symbol, market, timeframe, from });
    const scope = [market && `market ${market}`, timeframe && `timeframe ${timeframe}`, from !== undefined && `from ${fromText}`]
      .filter(Boolean)
      .join(", ");
    process.stdout.write(
      `Deleted ${deleted.toLocaleString("en-US")} bar${deleted === 1 ? "" : "s"} of ${symbol}${scope ? ` (${scope})` : ""} from ${store.file}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** ISO 8601, or the number of ms for a time no Date can show (stored before bounds existed). */
function isoOrMs(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

export const dataCommand: Command = {
  name: "data",
  summary: "Seed, import (CSV, Binance, MetaTrader, HistData), inspect and delete the store's bars",
  help,
  async run(args) {
    const [action, ...rest] = args;
    switch (action) {
      case "seed": {
        const { flags, positionals } = parseDataArgs("seed", rest);
        if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
        return seed(flags);
      }
      case "import": {
        const { flags, positionals } = parseDataArgs("import", rest);
        return importFile(positionals, flags);
      }
      case "status": {
        const { flags, positionals } = parseDataArgs("status", rest);
        if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
        return status(flags);
      }
      case "delete": {
        const { flags, positionals } = parseDataArgs("delete", rest);
        return deleteBars(positionals, flags);
      }
      default: {
        if (action === undefined) throw new UsageError("data needs an action: seed, import, status or delete");
        const suggestion = closest(action, Object.keys(OPTIONS));
        throw new UsageError(`Unknown action '${action}'${suggestion ? `, did you mean '${suggestion}'?` : ""}`);
      }
    }
  },
};
