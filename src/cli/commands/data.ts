/** `xql data seed|import|status`: fill and inspect the embedded store's bars. */
import type { Command } from "../command.js";
import { UsageError, parseFlags } from "../command.js";
import { CsvImportError, importBarsCsv } from "../../data/csv.js";
import { SEED_BARS, seedStore } from "../../data/seed.js";
import { TIMEFRAMES } from "../../types.js";
import { progressBar } from "../progress.js";
import { databasePath, openStore } from "../store.js";
import { renderTable } from "../table.js";

const help = `Usage:
  xql data seed [--bars N] [--db FILE|URL]
  xql data import FILE.csv --market M --timeframe TF [--db FILE|URL]
  xql data status [--db FILE|URL]

Fill the embedded store with bars. \`xql serve\` and \`xql run\` seed an empty store by
themselves; these commands refresh or add data.

  seed     Writes the deterministic synthetic FOREX and CRYPTO universe at every timeframe
           (${TIMEFRAMES.join(" ")}), ${SEED_BARS} bars each, ending now. Synthetic symbols are
           replaced whole; other data stays.
  import   Reads CSV rows symbol,time,open,high,low,close,volume (header optional; time in
           ms since the epoch or ISO 8601, UTC unless an offset is given) for one market and
           timeframe. Every row is checked first (finite numbers, high >= max(open, close),
           low <= min(open, close), volume >= 0, time on a bar boundary of the timeframe);
           the first bad row is reported with its line number and nothing is written. Rows
           are upserts: importing a file twice leaves the same bars.
  status   What the store holds, per market and timeframe.

A progress bar is drawn on standard error when it is a terminal.

Options:
  --market M      market name (stored in upper case), e.g. FOREX, CRYPTO
  --timeframe TF  one of ${TIMEFRAMES.join(" ")}
  --bars N        bars per symbol and timeframe for seed (default ${SEED_BARS})
  --db FILE|URL   database file (default: $XQL_DB, else .xql/xql.db), or a
                  PostgreSQL URL (default: $XQL_DATABASE_URL, which wins over $XQL_DB)
`;

function positiveInteger(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer`);
  return value;
}

async function seed(flags: Map<string, string>): Promise<number> {
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

async function importCsv(positionals: string[], flags: Map<string, string>): Promise<number> {
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) throw new UsageError("data import needs exactly one FILE.csv");
  const market = flags.get("market");
  const timeframe = flags.get("timeframe");
  if (market === undefined) throw new UsageError("data import needs --market M");
  if (timeframe === undefined) throw new UsageError("data import needs --timeframe TF");
  const store = await openStore(databasePath(flags.get("db")));
  const reading = progressBar("Checking");
  const writing = progressBar("Writing ");
  try {
    const result = await importBarsCsv(store, file, {
      market,
      timeframe,
      onRead: reading.update,
      onWrite: (done, total) => {
        reading.done();
        writing.update(done, total);
      },
    });
    writing.done();
    process.stdout.write(
      `Imported ${result.bars.toLocaleString("en-US")} ${result.timeframe} bars of ${result.symbols} symbol${result.symbols === 1 ? "" : "s"} into market ${result.market} (${store.file})\n`,
    );
    return 0;
  } catch (error) {
    reading.done();
    writing.done();
    if (error instanceof CsvImportError) {
      process.stderr.write(`xql data import: ${file}: ${error.message}; nothing was written\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

async function status(flags: Map<string, string>): Promise<number> {
  const store = await openStore(databasePath(flags.get("db")));
  try {
    const series = await store.series();
    if (series.length === 0) {
      process.stdout.write(`${store.file} holds no bars. Run \`xql data seed\` or \`xql data import\`.\n`);
      return 0;
    }
    const groups = new Map<string, { market: string; timeframe: string; symbols: number; bars: number; last: number }>();
    for (const s of series) {
      const key = `${s.market}\u0000${s.timeframe}`;
      const group = groups.get(key) ?? { market: s.market, timeframe: s.timeframe, symbols: 0, bars: 0, last: 0 };
      group.symbols++;
      group.bars += s.bars;
      group.last = Math.max(group.last, s.lastTime);
      groups.set(key, group);
    }
    const order = (tf: string): number => (TIMEFRAMES as readonly string[]).indexOf(tf);
    const rows = [...groups.values()]
      .sort((a, b) => a.market.localeCompare(b.market) || order(a.timeframe) - order(b.timeframe))
      .map((g) => [g.market, g.timeframe, String(g.symbols), g.bars.toLocaleString("en-US"), new Date(g.last).toISOString().slice(0, 16).replace("T", " ")]);
    process.stdout.write(`${store.file} (data version ${await store.dataVersion()})\n`);
    process.stdout.write(renderTable(["market", "timeframe", "symbols", "bars", "latest bar (UTC)"], rows, [false, false, true, true, false]));
    return 0;
  } finally {
    await store.close();
  }
}

export const dataCommand: Command = {
  name: "data",
  summary: "Seed, import (CSV) and inspect the embedded store's bars",
  help,
  async run(args) {
    const [action, ...rest] = args;
    const { flags, positionals } = parseFlags(rest);
    switch (action) {
      case "seed":
        return seed(flags);
      case "import":
        return importCsv(positionals, flags);
      case "status":
        return status(flags);
      default:
        throw new UsageError(action === undefined ? "data needs an action: seed, import or status" : `Unknown action '${action}'`);
    }
  },
};
