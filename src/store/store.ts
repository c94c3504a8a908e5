/**
 * The storage contracts the service depends on. Routes and the fetcher see only these
 * interfaces, so a PostgreSQL bar/key store or a Redis quota store can replace the
 * embedded SQLite one (`./sqlite.ts`) without touching a route. Every method returns a
 * Promise so networked backends fit; the embedded store simply resolves at once.
 */
import type { Bars, RawSeries, Timeframe, TouchedSeries } from "../types.js";
import type { Columns } from "./blocks.js";
import type { SeriesClaim } from "./series-owners.js";
import { XqlDataError } from "../errors.js";

// What a write changed is read by the store and, through its change log, by the evaluator's
// carried passes (src/eval/carry.ts): defined once in src/types.ts, below both.
export type { TouchedSeries };

/** One symbol's bars at one timeframe, oldest first. */
export interface SymbolBars {
  /** The symbol, such as `EURUSD`. */
  symbol: string;
  /** The symbol's bars, oldest first; `time` is the UTC open time in ms since epoch. */
  bars: Bars;
}

/**
 * One plan source to fetch: the latest `count` bars per symbol of `market` at `timeframe`,
 * reading only `series` (plus `time`).
 *
 * When `timeframe` is not the base timeframe, bars are cut per symbol at the close of that
 * symbol's latest base bar (open time + base duration): the store returns the latest
 * `count + 1` bars that OPENED before that cut, so the `count` bars that closed by it are
 * there, plus at most one still in progress, which the evaluator's closed-bar rule ignores.
 * Timeframe durations nest (each divides the next), so a finer bar that opened before the
 * cut has also closed by it.
 *
 * A SQL backend answers this in one round trip: the cut comes from a per-symbol
 * `max(time)` of the base timeframe, and a lateral `ORDER BY time DESC LIMIT count + 1`
 * picks the bars.
 */
export interface LatestBarsRequest {
  /** The market whose symbols are read, in the spelling the bars are stored under. */
  market: string;
  /** The timeframe whose bars are read. */
  timeframe: Timeframe;
  /** The query's base timeframe; equal to `timeframe` for the base source. */
  baseTimeframe: Timeframe;
  /** The raw series to fill; `time` is always filled. */
  series: readonly RawSeries[];
  /** Bars wanted per symbol, the latest ones; off the base timeframe, one more may come (see above). */
  count: number;
  /**
   * Only these symbols (the chart of one series reads one); default every symbol of the
   * market. A symbol without bars at the timeframe is left out of the answer, as always.
   */
  symbols?: readonly string[];
}

/** Bars to write for one market and timeframe. */
export interface BarBatch {
  /** The market the bars belong to, stored in this spelling. */
  market: string;
  /** The timeframe of every bar of the batch. */
  timeframe: Timeframe;
  /** The bars to write, per symbol, oldest first. */
  symbols: readonly SymbolBars[];
  /** Drop every stored bar of these symbols at this timeframe first (a fresh synthetic seed does). */
  replace?: boolean;
}

/** What one symbol holds at one timeframe. */
export interface SeriesInfo {
  /** The market, in its stored spelling. */
  market: string;
  /** The timeframe. */
  timeframe: Timeframe;
  /** The symbol. */
  symbol: string;
  /** How many bars are stored. */
  bars: number;
  /** Open time of the oldest stored bar: UTC, ms since epoch. */
  firstTime: number;
  /** Open time of the latest stored bar: UTC, ms since epoch. */
  lastTime: number;
  /** True when the bars are derived from a finer imported timeframe, false when imported. */
  derived: boolean;
}

/** Where a series' bars came from: the feed that last synced it (`xql data sync`), its price side, and when. */
export interface FeedRecord {
  /** The series' market, timeframe and symbol, as stored. */
  market: string;
  /** The timeframe the sync stored (coarser ones are derived from it). */
  timeframe: Timeframe;
  /** As stored (`EURUSD`, `BTCUSDT`). */
  symbol: string;
  /** The sync source: a ccxt exchange id (`binance`), `oanda` or `dukascopy`. */
  source: string;
  /** `bid`, `ask`, `mid`, or `trades` for an exchange's last prices. */
  price: string;
  /** When a sync last had the source's answer for the series (ms). */
  syncedAt: number;
}

/** Which bars {@link BarStore.deleteBars} removes: one symbol, optionally narrowed. */
export interface DeleteBarsRequest {
  /** The symbol whose bars go. */
  symbol: string;
  /** Only in this market (stored spelling); default every market holding the symbol. */
  market?: string;
  /** Only at this timeframe; default every timeframe. */
  timeframe?: Timeframe;
  /** Only bars opening at or after this time (ms since epoch); default all of them. */
  from?: number;
}

/**
 * A store could not take a request-path write in time because another writer holds the lock
 * (an import): the service answers 503 with `Retry-After` instead of waiting.
 */
export class StoreBusyError extends XqlDataError<"store-busy"> {
  override readonly name: string = "StoreBusyError";
  constructor(options?: ErrorOptions) {
    super("store-busy", {}, options);
  }
}

/**
 * What `/health` reports for a failed dependency: which one, and a message safe to show anyone
 * (never a host, a path or a credential; the cause goes to the log only).
 */
export class HealthError extends XqlDataError<"store-health"> {
  /** Always `"HealthError"`. */
  override readonly name: string = "HealthError";
  constructor(
    /** `database` (bars and keys), `quota`, or the store's own word. */
    readonly dependency: string,
    /** What is wrong, e.g. `cannot be written`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super("store-health", { dependency, reason }, options);
  }
}

/** What one {@link BarStore.upsertBars} wrote. */
export interface WriteResult {
  /** Bars written (imported timeframes; derived bars not counted). */
  written: number;
  /** Of those, bars that replaced a stored bar of the same time. */
  replaced: number;
  /** Distinct (market, symbol) pairs written. */
  symbols: number;
  /** The store's data version after the write. */
  version: number;
}

/** A committed write of bars, as told to {@link BarStore.watch} listeners. */
export interface DataChange {
  /** The store's data version after the write; each listener sees increasing versions. */
  version: number;
  /** `local`: written through this store object; `remote`: by another connection or process. */
  origin: "local" | "remote";
  /** For a local write, every series it changed (derived ones included); for a remote one, see {@link BarStore.changesSince}. */
  touched?: readonly TouchedSeries[];
}

/** What changed since a data version (see {@link BarStore.changesSince}). */
export interface ChangesSince {
  /** The store's data version now. */
  version: number;
  /** Every series changed by the writes after the version asked about, or null when the store cannot tell (read everything again). */
  touched: TouchedSeries[] | null;
}

/** Told about each committed write of bars. */
export type DataListener = (change: DataChange) => void;

/** Bars to write to one series, streamed: strictly increasing times, in chunks that follow each other. */
export interface Incoming {
  /** The timeframe of every bar (written as imported). */
  timeframe: Timeframe;
  /** Drop what the series held first. */
  replace: boolean;
  /** Open time of the first bar. */
  lo: number;
  /** Open time of the last bar. */
  hi: number;
  /** How many bars. */
  count: number;
  /** The bars, oldest first; may be iterated more than once (the write reads them again to derive). */
  chunks(): Iterable<Columns>;
}

/** What one write does to one symbol of a market: one {@link Incoming} per timeframe written. */
export interface SymbolWrite {
  /** The market, stored in this spelling. */
  market: string;
  /** The symbol. */
  symbol: string;
  /** The bars per timeframe written. */
  incoming: readonly Incoming[];
}

/** How a write on the service's request path (`POST /xql/bars`) goes. */
export interface WriteOptions {
  /**
   * The series the write creates are counted and recorded for this claim's account first, in the
   * write's transaction; past either bound the write rejects with a `SeriesLimitError`, nothing written.
   */
  claim?: SeriesClaim;
  /**
   * Resolves when the write may go on: a store that shares the thread does the write in slices
   * and lets other requests in between them (SQLite: on a connection of its own, so readers see
   * only committed bars); a networked store yields at each round trip anyway.
   */
  turn?: () => Promise<void>;
}

/** Called while a long write proceeds: bars written so far of the total. */
export type ProgressListener = (done: number, total: number) => void;

/** OHLCV bars per market, timeframe and symbol. */
export interface BarStore {
  /**
   * The latest bars of every symbol of the market at one timeframe (see
   * {@link LatestBarsRequest}). Series the request does not name may come back as NaN
   * columns; `time` and the named series are always filled.
   */
  latestBars(request: LatestBarsRequest): Promise<SymbolBars[]>;
  /**
   * {@link latestBars} for a caller that keeps the bars and appends to them (the hot tier): each
   * symbol's columns are followed in their buffers by `room` spare values that belong to the
   * caller, so `new Float64Array(column.buffer, column.byteOffset, n + room)` is that symbol's
   * own to write.
   */
  latestBarsWithRoom(request: LatestBarsRequest, room: number): Promise<SymbolBars[]>;
  /**
   * Inserts or replaces bars (keyed by market, timeframe, symbol, time) in one transaction: all or
   * nothing. See {@link WriteOptions} for a write on the service's request path (a push).
   */
  upsertBars(batches: readonly BarBatch[], onProgress?: ProgressListener, options?: WriteOptions): Promise<WriteResult>;
  /**
   * The write path under {@link upsertBars} with the bars streamed rather than in memory (an
   * import of any size): sorted, distinct bars per series, in one transaction, all or nothing.
   */
  writeSeries(writes: readonly SymbolWrite[], onProgress?: ProgressListener): Promise<WriteResult>;
  /**
   * Removes bars of one symbol (see {@link DeleteBarsRequest}); resolves to the number removed.
   * A series of the symbol left without bars loses its feed record ({@link feeds}).
   */
  deleteBars(request: DeleteBarsRequest): Promise<number>;
  /** Every symbol of the market holding bars at any timeframe, sorted: the universe a screen considers. */
  symbols(market: string): Promise<string[]>;
  /** Markets that hold bars, in their stored spelling. */
  markets(): Promise<string[]>;
  /** Every (market, timeframe, symbol) series, optionally of one market. */
  series(market?: string): Promise<SeriesInfo[]>;
  /** Records which feed last synced these series (one row per series, replaced). */
  recordFeeds(records: readonly FeedRecord[]): Promise<void>;
  /** The feed records, optionally of one market. */
  feeds(market?: string): Promise<FeedRecord[]>;
  /** Total bars imported (derived bars not counted); 0 for an empty store (the signal to seed). */
  barCount(): Promise<number>;
  /** A token that changes on every write of bars; equal tokens mean unchanged bars. */
  dataVersion(): Promise<number>;
  /**
   * The series changed by the writes after data version `version`, from the store's change log
   * (which keeps the latest writes only): a reader refreshes those instead of everything.
   */
  changesSince(version: number): Promise<ChangesSince>;
  /**
   * Every column of the bars of some series of one market and timeframe opening at or after a
   * time per symbol (a reader refreshing what a write touched); symbols without such bars are
   * left out.
   */
  barsSince(market: string, timeframe: Timeframe, since: readonly { symbol: string; from: number }[]): Promise<SymbolBars[]>;
  /**
   * Calls `listener` after each committed write of bars: at once for writes through this
   * object, within the store's watch interval (SQLite) or on notification (PostgreSQL) for
   * writes by other connections and processes. Returns the function that stops listening.
   */
  watch(listener: DataListener): () => void;
  /** Ends the connection (pool); later calls reject. Every caller awaits it. */
  close(): Promise<void>;
  /**
   * Resolves when the store answers a read of every table a request needs (bars, series,
   * meta, accounts, keys, quota counters) and can be written; rejects when it cannot,
   * preferably with a {@link HealthError} that names what failed.
   */
  health(): Promise<void>;
}

/**
 * The health probe of the SQL bar stores: one cheap read of every table of bars a request
 * touches, so a missing or unreadable table fails `/health` as it would fail a run (valid
 * SQLite and PostgreSQL). The accounts composed beside the bars read theirs.
 */
export const HEALTH_SQL =
  "SELECT EXISTS (SELECT 1 FROM bar_blocks) AS bars, EXISTS (SELECT 1 FROM series) AS series, " +
  "(SELECT value FROM meta WHERE key = 'data_version') AS data_version";
