/**
 * The storage contracts the service depends on. Routes and the fetcher see only these
 * interfaces, so a PostgreSQL bar/key store or a Redis quota store can replace the
 * embedded SQLite one (`./sqlite.ts`) without touching a route. Every method returns a
 * Promise so networked backends fit; the embedded store simply resolves at once.
 */
import type { Bars, RawSeries, Timeframe } from "../types.js";

/** Subscription tiers, cheapest first. */
export const TIERS = ["free", "essential", "plus"] as const;
/** A subscription tier, `free`, `essential` or `plus`: it sets an account's daily run quota ({@link TIER_LIMITS}). */
export type Tier = (typeof TIERS)[number];

/** Metered `run` calls allowed per account and UTC day. */
export const TIER_LIMITS: Readonly<Record<Tier, number>> = {
  free: 30,
  essential: 1500,
  plus: 4500,
};

export function isTier(name: string): name is Tier {
  return (TIERS as readonly string[]).includes(name);
}

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
export class StoreBusyError extends Error {
  override readonly name = "StoreBusyError";
}

/**
 * What `/health` reports for a failed dependency: which one, and a message safe to show anyone
 * (never a host, a path or a credential; the cause goes to the log only).
 */
export class HealthError extends Error {
  /** Always `"HealthError"`. */
  override readonly name = "HealthError";
  constructor(
    /** `database` (bars and keys), `quota`, or the store's own word. */
    readonly dependency: string,
    /** What is wrong, e.g. `cannot be written`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${dependency}: ${reason}`, options);
  }
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
  /** Inserts or replaces bars (keyed by market, timeframe, symbol, time) in one transaction: all or nothing. */
  upsertBars(batches: readonly BarBatch[], onProgress?: ProgressListener): Promise<number>;
  /** Removes bars of one symbol (see {@link DeleteBarsRequest}); resolves to the number removed. */
  deleteBars(request: DeleteBarsRequest): Promise<number>;
  /** Every symbol of the market holding bars at any timeframe, sorted: the universe a screen considers. */
  symbols(market: string): Promise<string[]>;
  /** Markets that hold bars, in their stored spelling. */
  markets(): Promise<string[]>;
  /** Every (market, timeframe, symbol) series, optionally of one market. */
  series(market?: string): Promise<SeriesInfo[]>;
  /** Total bars imported (derived bars not counted); 0 for an empty store (the signal to seed). */
  barCount(): Promise<number>;
  /** A token that changes on every write of bars; equal tokens mean unchanged bars. */
  dataVersion(): Promise<number>;
  /** Ends the connection (pool); later calls reject. Every caller awaits it. */
  close(): Promise<void>;
  /**
   * Resolves when the store answers a read of every table a request needs (bars, series,
   * meta, accounts, keys, quota counters) and can be written; rejects when it cannot,
   * preferably with a {@link HealthError} that names what failed.
   */
  health(): Promise<void>;
}

/** An account: it carries the tier, and all of its keys share one daily quota. */
export interface Account {
  /** The account id; `xql keys create` makes `acct_` followed by 16 base62 characters. */
  id: string;
  /** The account's tier, which sets its daily run quota. */
  tier: Tier;
  /** When the account was created: ms since epoch. */
  createdAt: number;
}

/** An API key as stored: never the key itself, only its hash and a short display prefix. */
export interface KeyRecord {
  /** SHA-256 hex of the whole key. */
  hash: string;
  /** The first characters of the key, for people to tell keys apart (`xql_AbCd`). */
  prefix: string;
  /** The account the key belongs to; runs count against the account's quota. */
  accountId: string;
  /** The tier of the key's account. */
  tier: Tier;
  /** A note to tell keys apart (`xql keys create --label`), or null. */
  label: string | null;
  /** When the key was created: ms since epoch. */
  createdAt: number;
  /** When the key was revoked (ms since epoch), or null while it is valid. */
  revokedAt: number | null;
}

/** Accounts (which carry the tier) and their API keys. */
export interface KeyStore {
  /** Creates an account of `tier` at `now` (ms since epoch); rejects for an unknown tier or an id already taken. */
  createAccount(id: string, tier: Tier, now: number): Promise<Account>;
  /** The account with this id, or `undefined`. */
  findAccount(id: string): Promise<Account | undefined>;
  /** Adds a key to an existing account; rejects when the account does not exist. */
  createKey(key: { hash: string; prefix: string; accountId: string; label: string | null }, now: number): Promise<KeyRecord>;
  /** The key with this hash, revoked or not. */
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  /** Marks the key revoked; false when no such key exists or it was already revoked. */
  revokeKey(hash: string, now: number): Promise<boolean>;
  /** Every key, oldest first, without any whole key. */
  listKeys(): Promise<KeyRecord[]>;
}

/** The quota state of one account on one UTC day. */
export interface QuotaUsage {
  /** Metered calls counted for the account on the day. */
  used: number;
  /** Calls left on the day: the limit minus `used`, never below 0. */
  remaining: number;
}

/** The outcome of {@link QuotaStore.reserve}, with the day's usage after it. */
export interface Reservation extends QuotaUsage {
  /** True when the call was counted; false when the day's limit was already used up (a 429). */
  admitted: boolean;
}

/** Daily counters of metered calls per account. */
export interface QuotaStore {
  /**
   * Atomically takes one call from the account's allowance for `day` when fewer than
   * `limit` are used: of N concurrent reservations with k remaining, exactly k are admitted.
   * `reservationId` (unique per call) lets a networked store make the reservation idempotent
   * and reconcile it with a later {@link QuotaStore.release} of the same id even when the
   * reply to the reservation was lost.
   */
  reserve(accountId: string, day: string, limit: number, reservationId?: string): Promise<Reservation>;
  /**
   * Gives one reserved call back (a 500 consumes nothing); never below zero. With the
   * `reservationId` of the reservation, it gives back exactly that one, once, whether or not
   * the reservation itself has reached the store yet.
   */
  release(accountId: string, day: string, limit: number, reservationId?: string): Promise<QuotaUsage>;
  /** The account's usage on `day` (the UTC date, `YYYY-MM-DD`) against `limit`, changing nothing. */
  usage(accountId: string, day: string, limit: number): Promise<QuotaUsage>;
}

/**
 * The health probe of the SQL stores: one cheap read of every table a request touches, so a
 * missing or unreadable table fails `/health` as it would fail a run (valid SQLite and PostgreSQL).
 */
export const HEALTH_SQL =
  "SELECT EXISTS (SELECT 1 FROM bars) AS bars, EXISTS (SELECT 1 FROM series) AS series, " +
  "(SELECT value FROM meta WHERE key = 'data_version') AS data_version, EXISTS (SELECT 1 FROM accounts) AS accounts, " +
  "EXISTS (SELECT 1 FROM api_keys) AS api_keys, EXISTS (SELECT 1 FROM quota_usage) AS quota_usage";
