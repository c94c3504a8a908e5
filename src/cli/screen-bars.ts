/**
 * What `xql run` and `xql history` share: the query limits from `--ceiling` and
 * `--warmup-ceiling`, and the bars a compiled query runs over, read from the store exactly as
 * the service reads them (seeded on first use) or, with `--synthetic`, generated in memory.
 */
import { historyAnchoredAsync, runAnchoredAsync, type CompiledQuery } from "../api.js";
import { DEFAULT_WARMUP, fetchAnchored, fetchCount } from "../fetch/fetch.js";
import { syntheticUniverse } from "../synthetic/synthetic.js";
import { CRYPTO_SYMBOLS, FOREX_SYMBOLS } from "../synthetic/symbols.js";
import { DEFAULT_MARKETS, type HistoryResult, type Instrument, type RunResult, type XqlOptions } from "../types.js";
import { positiveInteger, UsageError, type CliIo, type Format } from "./command.js";
import { compileOrReport } from "./report.js";
import { LOCAL_ACCOUNT, type WatchlistStore } from "../accounts/watchlists.js";

/** The store's local lists by name, for `watchlist = "name"` on the command line (decisions §13). */
export async function localWatchlists(store: WatchlistStore): Promise<Record<string, string[]>> {
  return Object.fromEntries((await store.listWatchlists(LOCAL_ACCOUNT)).map((w) => [w.name, w.symbols]));
}

const SYNTHETIC_SYMBOLS: Readonly<Record<string, number>> = { FOREX: FOREX_SYMBOLS.length, CRYPTO: CRYPTO_SYMBOLS.length };

/** The options `run` and `history` read their bars by. */
export interface ScreenBarsOptions {
  readonly db?: string;
  readonly synthetic?: boolean;
  readonly ceiling?: string;
  readonly "warmup-ceiling"?: string;
}

/** The query limits and the per-source warm-up floor the options ask for. */
export interface ScreenLimits {
  readonly options: XqlOptions;
  readonly warmup: number;
}

/** `--ceiling` and `--warmup-ceiling`, checked (before the query is read, so a typo fails at once). */
export function screenLimits(command: "run" | "history", options: ScreenBarsOptions): ScreenLimits {
  const lookbackCeiling = positiveInteger(command, "ceiling", options.ceiling);
  const warmupCeiling = positiveInteger(command, "warmup-ceiling", options["warmup-ceiling"]);
  return {
    options: {
      ...(lookbackCeiling === undefined ? {} : { lookbackCeiling }),
      ...(warmupCeiling === undefined ? {} : { warmupCeiling }),
    },
    // The floor of 300 bars per source is cut too when the ceiling is lower.
    warmup: Math.min(DEFAULT_WARMUP, warmupCeiling ?? DEFAULT_WARMUP),
  };
}

/** A query compiled against the bars' markets, and the bars it runs over. */
export interface ScreenBars {
  readonly compiled: CompiledQuery;
  readonly universe: Instrument[];
  /**
   * The run over those bars: on the store, from each bar's anchors as the service runs
   * (decisions §9); with `--synthetic`, over the bars generated, as the library runs.
   */
  run(): Promise<RunResult>;
  /** The history over the last `bars` base bars, likewise. */
  history(bars: number): Promise<HistoryResult>;
}

/** The evaluations of a screen over bars: from anchors (the store's) or as given (the library's). */
function screenOf(compiled: CompiledQuery, universe: Instrument[], anchored: boolean): ScreenBars {
  return {
    compiled,
    universe,
    run: () => (anchored ? runAnchoredAsync(compiled, universe) : Promise.resolve(compiled.run(universe))),
    history: async (bars) => (anchored ? (await historyAnchoredAsync(compiled, universe, { bars })).result : compiled.history(universe, { bars })),
  };
}

/**
 * Compiles `query` and reads its bars: every source's `max(minLookback, warm-up, fetch)` bars,
 * plus those covering `extraBaseBars` earlier base bars (screen history's window less one).
 * Without `--synthetic` the store at `--db` is opened (loaded only then, so `--synthetic` runs
 * without the database packages), seeded when empty, read and closed. A query error is
 * reported on `io` as `format` asks and gives `undefined`.
 */
export async function compileWithBars(
  command: "run" | "history",
  io: CliIo,
  query: string,
  file: string | undefined,
  format: Format,
  options: ScreenBarsOptions,
  { options: limits, warmup }: ScreenLimits,
  extraBaseBars = 0,
): Promise<ScreenBars | undefined> {
  if (options.synthetic) {
    if (options.db !== undefined) throw new UsageError(`xql ${command}: --synthetic uses no database; drop --db`);
    // No store, no saved lists: a watchlist is unknown here.
    const compiled = compileOrReport(io, query, file, format, { markets: DEFAULT_MARKETS, ...limits, watchlists: {} });
    if (!compiled) return undefined;
    const { plan } = compiled;
    const universe = syntheticUniverse({
      market: plan.market,
      symbols: SYNTHETIC_SYMBOLS[plan.market] ?? 0,
      timeframes: plan.sources.map((s) => s.timeframe),
      bars: Math.max(...compiled.fetch.map((s) => fetchCount(s.bars, warmup))) + extraBaseBars + 1,
    });
    return screenOf(compiled, universe, false);
  }

  const { databasePath, marketsOf, openStore, seedOnFirstUse } = await import("./store.js");
  const store = await openStore(databasePath(options.db, io.env, io.cwd), io.stderr);
  try {
    const compiled = compileOrReport(io, query, file, format, { markets: await marketsOf(store), ...limits, watchlists: await localWatchlists(store) });
    if (!compiled) return undefined;
    await seedOnFirstUse(store, io.stderr);
    const universe = await fetchAnchored(store, compiled.plan, { warmup, fetch: compiled.fetch, anchorSources: compiled.fetch, bars: extraBaseBars + 1, ...(compiled.symbols ? { symbols: compiled.symbols } : {}) });
    return screenOf(compiled, universe, true);
  } finally {
    await store.close();
  }
}
