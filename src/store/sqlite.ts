/**
 * The embedded store: bars, accounts, API keys and quota counters in one SQLite file
 * (better-sqlite3, WAL). It implements {@link BarStore}, {@link KeyStore} and
 * {@link QuotaStore}, so `xql serve` needs nothing but a file.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { Bars, RawSeries, Timeframe } from "../types.js";
import { RAW_SERIES, TIMEFRAME_MS, isTimeframe } from "../types.js";
import type { Account, KeyRecord, KeyStore, QuotaStore, QuotaUsage, Reservation, Tier } from "../accounts/accounts.js";
import { SqliteAccounts } from "../accounts/sqlite.js";
import { SqliteAlerts } from "../alerts/sqlite.js";
import type { AlertStore } from "../alerts/alerts.js";
import { ALERTS_MIGRATION, ALERTS_SQLITE_SQL } from "../alerts/schema.js";
import type { BarBatch, BarStore, DataListener, LatestBarsRequest, DeleteBarsRequest, ProgressListener, SeriesInfo, SymbolBars, WriteResult } from "./store.js";
import { ChangeFeed } from "./watch.js";
import { alignmentCut } from "../alignment.js";
import { HEALTH_SQL, HealthError, StoreBusyError } from "./store.js";
import { type BusyTimeouts, identityOf, isBusy } from "./sqlite-database.js";
import { FULL_SPAN, aggregateBars, planDerivation, recordSpan, type DeriveJob, type Touched } from "./derive.js";
import { BLOCK_BARS, assembleLatest, blockOf, blockStart, orderedSeries, packBlocks, uniqueBars, type ReadBlock } from "./blocks.js";

/** One step of the schema. Versions only grow; a released migration is never edited. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "bars, series catalog, accounts, keys, quota",
    sql: `
      -- One row per bar, clustered by (market, timeframe, symbol, time): "the latest N bars
      -- of a symbol" is one backwards range scan of the primary key.
      CREATE TABLE bars (
        market    TEXT    NOT NULL,
        timeframe TEXT    NOT NULL,
        symbol    TEXT    NOT NULL,
        time      INTEGER NOT NULL,
        open      REAL    NOT NULL,
        high      REAL    NOT NULL,
        low       REAL    NOT NULL,
        close     REAL    NOT NULL,
        volume    REAL    NOT NULL,
        PRIMARY KEY (market, timeframe, symbol, time)
      ) WITHOUT ROWID;

      -- What each (market, timeframe, symbol) holds, kept in step with bars by every write,
      -- so listing a market's symbols and their latest bar never scans bars.
      CREATE TABLE series (
        market     TEXT    NOT NULL,
        timeframe  TEXT    NOT NULL,
        symbol     TEXT    NOT NULL,
        bars       INTEGER NOT NULL,
        first_time INTEGER NOT NULL,
        last_time  INTEGER NOT NULL,
        PRIMARY KEY (market, timeframe, symbol)
      ) WITHOUT ROWID;

      -- Counters that change on writes; data_version keys the service's fetch cache.
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO meta (key, value) VALUES ('data_version', 0);

      CREATE TABLE accounts (
        id         TEXT    PRIMARY KEY,
        tier       TEXT    NOT NULL CHECK (tier IN ('free', 'essential', 'plus')),
        created_at INTEGER NOT NULL
      );

      -- Only the SHA-256 of a key is kept; prefix is for people to tell keys apart.
      CREATE TABLE api_keys (
        hash       TEXT    PRIMARY KEY,
        prefix     TEXT    NOT NULL,
        account_id TEXT    NOT NULL REFERENCES accounts (id),
        label      TEXT,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE INDEX api_keys_account ON api_keys (account_id);

      -- Metered calls per account and UTC day (YYYY-MM-DD).
      CREATE TABLE quota_usage (
        account_id TEXT    NOT NULL,
        day        TEXT    NOT NULL,
        used       INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
        PRIMARY KEY (account_id, day)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: "derived timeframes: series.derived marks bars built from the finest imported timeframe",
    sql: `ALTER TABLE series ADD COLUMN derived INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    name: "packed bars: time-aligned blocks of float64 columns for cold reads",
    sql: `
      CREATE TABLE bar_blocks (
        market    TEXT    NOT NULL,
        timeframe TEXT    NOT NULL,
        symbol    TEXT    NOT NULL,
        block     INTEGER NOT NULL,
        n         INTEGER NOT NULL,
        time      BLOB    NOT NULL,
        open      BLOB    NOT NULL,
        high      BLOB    NOT NULL,
        low       BLOB    NOT NULL,
        close     BLOB    NOT NULL,
        volume    BLOB    NOT NULL,
        PRIMARY KEY (market, timeframe, symbol, block)
      ) WITHOUT ROWID;
      -- 0 until the blocks of bars written before this migration are built (on the next open).
      INSERT INTO meta (key, value) VALUES ('blocks_built', 0);
    `,
  },
  { ...ALERTS_MIGRATION, sql: ALERTS_SQLITE_SQL },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function migrate(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const row = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number | null };
  const current = row.v ?? 0;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `The database schema is at version ${current}, newer than this xql understands (${SCHEMA_VERSION}); upgrade xql`,
    );
  }
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    // Each step commits whole or not at all, so a crash never leaves half a schema.
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    }).immediate();
  }
}

/** Options of the {@link SqliteStore} constructor. */
export interface SqliteStoreOptions {
  /** Open without writing: no migrations, no writes. */
  readonly?: boolean;
  /** How long a bulk writer (import, seed, keys) waits for another connection's lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * How long a quota write or the health probe (the service's request path) waits for the
   * quota file's lock, in ms, polling without blocking the event loop. Default 1000.
   */
  requestBusyMs?: number;
  /** How often {@link SqliteStore.watch} looks for other connections' writes, in ms. Default 200. */
  watchIntervalMs?: number;
}

type SqlRow = unknown[];

/** Most keys `SqliteStore` keeps in memory between commits by other connections. */
const KEY_CACHE_LIMIT = 4096;

/**
 * {@link BarStore}, {@link KeyStore} and {@link QuotaStore} on one SQLite file.
 * Calls run synchronously inside better-sqlite3 and resolve at once; a closed or broken
 * database rejects.
 */
export class SqliteStore implements BarStore, KeyStore, QuotaStore {
  /** The database file as given (`:memory:` for an in-memory database). */
  readonly file: string;
  /** The backend, for callers that hold a store opened by URL. */
  readonly backend = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly readStatements = new Map<string, { base: Database.Statement; cut: Database.Statement }>();
  private blockReads: Map<string, { base: Database.Statement; cut: Database.Statement; one: Database.Statement }>;
  private readonly stmt;
  /** Accounts, keys and quota counters, on this connection. */
  readonly accounts: SqliteAccounts;
  private alertStore: SqliteAlerts | undefined;
  /** Watchers of writes: this object's at once, other connections' by `PRAGMA data_version` on a timer. */
  private readonly changes: ChangeFeed;
  private lastCommitsByOthers = -1;
  private readonly timeouts: BusyTimeouts;
  /** Device and inode of the file when it was opened: `/health` notices a deleted or replaced file. */
  private readonly identity: string | undefined;
  private readonly readonly: boolean;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    this.file = file;
    this.readonly = options.readonly ?? false;
    if (file !== ":memory:" && !options.readonly) mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    this.timeouts = { busyTimeoutMs: options.busyTimeoutMs ?? 5000, requestBusyMs: options.requestBusyMs ?? 1000 };
    this.db.pragma(`busy_timeout = ${this.timeouts.busyTimeoutMs}`);
    if (!options.readonly) {
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.pragma("foreign_keys = ON");
      migrate(this.db);
    }
    this.identity = identityOf(file);
    this.accounts = new SqliteAccounts(this.db, file, this.timeouts, this.readonly);
    this.changes = new ChangeFeed(() => this.versionIfChangedByOthers(), options.watchIntervalMs ?? 200);
    this.blockReads = new Map();
    const db = this.db;
    this.stmt = {
      symbolsAt: db.prepare("SELECT symbol, last_time FROM series WHERE market = ? AND timeframe = ? ORDER BY symbol").raw(true),
      upsertBar: db.prepare(`INSERT INTO bars (market, timeframe, symbol, time, open, high, low, close, volume)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (market, timeframe, symbol, time) DO UPDATE SET
          open = excluded.open, high = excluded.high, low = excluded.low,
          close = excluded.close, volume = excluded.volume`),
      refreshSeries: db.prepare(`INSERT INTO series (market, timeframe, symbol, bars, first_time, last_time, derived)
        SELECT market, timeframe, symbol, count(*), min(time), max(time), ? FROM bars
        WHERE market = ? AND timeframe = ? AND symbol = ?
        GROUP BY market, timeframe, symbol
        ON CONFLICT (market, timeframe, symbol) DO UPDATE SET
          bars = excluded.bars, first_time = excluded.first_time, last_time = excluded.last_time,
          derived = excluded.derived`),
      symbolState: db.prepare("SELECT timeframe, derived FROM series WHERE market = ? AND symbol = ?").raw(true),
      deleteRange: db.prepare("DELETE FROM bars WHERE market = ? AND timeframe = ? AND symbol = ? AND time >= ? AND time < ?"),
      readRange: db
        .prepare(`SELECT time, open, high, low, close, volume FROM bars
          WHERE market = ? AND timeframe = ? AND symbol = ? AND time >= ? AND time < ? ORDER BY time`)
        .raw(true),
      marketSymbols: db.prepare("SELECT DISTINCT symbol FROM series WHERE market = ? ORDER BY symbol").pluck(),
      deleteBlocks: db.prepare("DELETE FROM bar_blocks WHERE market = ? AND timeframe = ? AND symbol = ? AND block >= ? AND block <= ?"),
      insertBlock: db.prepare(`INSERT INTO bar_blocks (market, timeframe, symbol, block, n, time, open, high, low, close, volume)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      blocksBuilt: db.prepare("SELECT value FROM meta WHERE key = 'blocks_built'").pluck(),
      markBlocksBuilt: db.prepare("UPDATE meta SET value = 1 WHERE key = 'blocks_built'"),
      everySeries: db.prepare("SELECT market, timeframe, symbol FROM series").raw(true),
      deleteSymbol: db.prepare("DELETE FROM bars WHERE market = ? AND timeframe = ? AND symbol = ?"),
      deleteSeries: db.prepare("DELETE FROM series WHERE market = ? AND timeframe = ? AND symbol = ?"),
      bumpVersion: db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'data_version' RETURNING value").pluck(),
      commitsByOthers: db.prepare("PRAGMA data_version").pluck(),
      barsHeld: db.prepare("SELECT bars FROM series WHERE market = ? AND timeframe = ? AND symbol = ?").pluck(),
      dataVersion: db.prepare("SELECT value FROM meta WHERE key = 'data_version'").pluck(),
      markets: db.prepare("SELECT DISTINCT market FROM series ORDER BY market").pluck(),
      allSeries: db.prepare(
        "SELECT market, timeframe, symbol, bars, first_time, last_time, derived FROM series ORDER BY market, timeframe, symbol",
      ),
      marketSeries: db.prepare(
        "SELECT market, timeframe, symbol, bars, first_time, last_time, derived FROM series WHERE market = ? ORDER BY timeframe, symbol",
      ),
      barCount: db.prepare("SELECT coalesce(sum(bars), 0) FROM series WHERE derived = 0").pluck(),
      health: db.prepare(HEALTH_SQL),
      probeWrite: db.prepare("UPDATE meta SET value = value WHERE key = 'data_version'"),
      deleteFrom: db.prepare("DELETE FROM bars WHERE market = ? AND timeframe = ? AND symbol = ? AND time >= ?"),
      seriesOf: db.prepare("SELECT market, timeframe FROM series WHERE symbol = ? ORDER BY market, timeframe").raw(true),
    };
    if (!options.readonly && this.stmt.blocksBuilt.get() === 0) {
      // Bars written before migration 3 get their blocks once, in one transaction.
      this.db
        .transaction(() => {
          for (const [market, timeframe, symbol] of this.stmt.everySeries.all() as [string, Timeframe, string][]) {
            this.rebuildBlocks(market, timeframe, symbol, -FULL_SPAN, FULL_SPAN);
          }
          this.stmt.markBlocksBuilt.run();
        })
        .immediate();
    }
  }

  /** Replaces every block of one series with `bars` packed (the series was written whole by this write). */
  private writeBlocks(market: string, timeframe: Timeframe, symbol: string, bars: Bars): void {
    this.stmt.deleteBlocks.run(market, timeframe, symbol, -FULL_SPAN, FULL_SPAN);
    for (const packed of packBlocks(bars, timeframe)) {
      const c = packed.columns;
      this.stmt.insertBlock.run(market, timeframe, symbol, packed.block, packed.n, c.time, c.open, c.high, c.low, c.close, c.volume);
    }
  }

  /** Rewrites the blocks of one series that hold open times in [from, to] from its rows (inside a write's transaction). */
  private rebuildBlocks(market: string, timeframe: Timeframe, symbol: string, from: number, to: number): void {
    const full = from <= -FULL_SPAN || to >= FULL_SPAN;
    const b0 = full ? -FULL_SPAN : blockOf(from, timeframe);
    const b1 = full ? FULL_SPAN : blockOf(to, timeframe);
    this.stmt.deleteBlocks.run(market, timeframe, symbol, b0, b1);
    const lo = full ? -FULL_SPAN : blockStart(b0, timeframe);
    const hi = full ? FULL_SPAN : blockStart(b1 + 1, timeframe);
    const rows = this.stmt.readRange.all(market, timeframe, symbol, lo, hi) as number[][];
    for (const packed of packBlocks(rowsToBars(rows), timeframe)) {
      const c = packed.columns;
      this.stmt.insertBlock.run(market, timeframe, symbol, packed.block, packed.n, c.time, c.open, c.high, c.low, c.close, c.volume);
    }
  }

  /** Closes the connection; later calls reject. Async like every store's, so callers await it whatever the backend. */
  async close(): Promise<void> {
    this.changes.close();
    if (this.db.open) this.db.close();
  }

  /** Alerts, their claims and their outbox, on this connection (prepared on first use). */
  get alerts(): AlertStore {
    return (this.alertStore ??= new SqliteAlerts(this.db, this.timeouts));
  }

  /** True while the connection is open; false after {@link SqliteStore.close}. */
  get open(): boolean {
    return this.db.open;
  }

  // ---- BarStore ----

  async latestBars(request: LatestBarsRequest): Promise<SymbolBars[]> {
    const { market, timeframe, baseTimeframe, count } = request;
    const series = orderedSeries(request.series);
    const symbols = request.symbols === undefined ? null : JSON.stringify(request.symbols);
    const statements = this.blockStatementsFor(series, symbols !== null);
    const span = BLOCK_BARS * TIMEFRAME_MS[timeframe];
    // Blocks per symbol read in the one query: enough when blocks are at least half full;
    // a symbol with sparser blocks is read again on its own, without the bound.
    const k = Math.ceil((2 * (count + 1)) / BLOCK_BARS) + 1;
    const base = timeframe === baseTimeframe;
    const read = this.db.transaction((): SymbolBars[] => {
      const rows = (base
        ? statements.base.all({ span, k, market, timeframe, ...(symbols === null ? {} : { symbols }) })
        : statements.cut.all({ baseDur: TIMEFRAME_MS[baseTimeframe], baseTimeframe, span, k, market, timeframe, ...(symbols === null ? {} : { symbols }) })) as unknown[][];
      const out: SymbolBars[] = [];
      let i = 0;
      while (i < rows.length) {
        const symbol = rows[i]![0] as string;
        const firstTime = rows[i]![1] as number;
        const cut = base ? Infinity : alignmentCut(rows[i]![2] as number, TIMEFRAME_MS[baseTimeframe]);
        const blocks: ReadBlock[] = [];
        for (; i < rows.length && rows[i]![0] === symbol; i++) blocks.push(readBlock(rows[i]!, 4));
        const want = base ? count : count + 1;
        let bars = assembleLatest(blocks, series, want, cut, nanColumn);
        const oldestRead = rows[i - 1]![3] as number;
        if (bars.time.length < want && oldestRead > blockOf(firstTime, timeframe)) {
          const all = (statements.one.all({ market, timeframe, symbol }) as unknown[][]).map((r) => readBlock(r, 0));
          bars = assembleLatest(all, series, want, cut, nanColumn);
        }
        out.push({ symbol, bars });
      }
      return out;
    });
    return read();
  }

  private blockStatementsFor(
    series: readonly RawSeries[],
    bySymbol: boolean,
  ): { base: Database.Statement; cut: Database.Statement; one: Database.Statement } {
    const key = `${series.join(",")}${bySymbol ? "|symbols" : ""}`;
    let statements = this.blockReads.get(key);
    if (!statements) {
      // Column names come from RAW_SERIES only, never from a request string.
      const list = ["b.n", "b.time", ...series.map((name) => `b.${name}`)].join(", ");
      // Only the symbols asked for (a JSON array): their series rows alone, so no other block is read.
      const only = bySymbol ? "AND s.symbol IN (SELECT value FROM json_each(@symbols))" : "";
      statements = {
        base: this.db
          // CROSS JOIN fixes the loop order: series outside, a primary-key range of blocks inside.
          .prepare(`SELECT s.symbol, s.first_time, NULL, b.block, ${list} FROM series s
            CROSS JOIN bar_blocks b ON b.market = s.market AND b.timeframe = s.timeframe AND b.symbol = s.symbol
              AND b.block > s.last_time / @span - @k
            WHERE s.market = @market AND s.timeframe = @timeframe ${only}
            ORDER BY s.symbol, b.block DESC`)
          .raw(true),
        // Cut at the close of the symbol's latest base bar (src/alignment.ts): blocks back from
        // the one holding the newest bar the cut lets through, min(newest, cut - 1) — never from
        // the cut itself, which may lie far past the data (a daily base bar over m1 bars).
        cut: this.db
          .prepare(`SELECT s.symbol, s.first_time, base.last_time, b.block, ${list} FROM series s
            CROSS JOIN series base ON base.market = s.market AND base.timeframe = @baseTimeframe AND base.symbol = s.symbol
            CROSS JOIN bar_blocks b ON b.market = s.market AND b.timeframe = s.timeframe AND b.symbol = s.symbol
              AND b.block <= min(s.last_time, base.last_time + @baseDur - 1) / @span
              AND b.block > min(s.last_time, base.last_time + @baseDur - 1) / @span - @k
            WHERE s.market = @market AND s.timeframe = @timeframe ${only}
            ORDER BY s.symbol, b.block DESC`)
          .raw(true),
        one: this.db
          .prepare(`SELECT ${list} FROM bar_blocks b
            WHERE b.market = @market AND b.timeframe = @timeframe AND b.symbol = @symbol ORDER BY b.block DESC`)
          .raw(true),
      };
      this.blockReads.set(key, statements);
    }
    return statements;
  }

  private readStatementsFor(series: readonly RawSeries[]): { base: Database.Statement; cut: Database.Statement } {
    const key = series.join(",");
    let statements = this.readStatements.get(key);
    if (!statements) {
      // Column names come from RAW_SERIES only, never from a request string.
      const list = ["time", ...series].join(", ");
      const where = "market = ? AND timeframe = ? AND symbol = ?";
      statements = {
        base: this.db.prepare(`SELECT ${list} FROM bars WHERE ${where} ORDER BY time DESC LIMIT ?`).raw(true),
        cut: this.db.prepare(`SELECT ${list} FROM bars WHERE ${where} AND time < ? ORDER BY time DESC LIMIT ?`).raw(true),
      };
      this.readStatements.set(key, statements);
    }
    return statements;
  }

  async upsertBars(batches: readonly BarBatch[], onProgress?: ProgressListener): Promise<WriteResult> {
    let total = 0;
    for (const batch of batches) for (const { bars } of batch.symbols) total += bars.time.length;
    const write = this.db.transaction((): WriteResult => {
      let done = 0;
      // Bars held per written series before the write, and distinct times written to it: what
      // was not added replaced a stored bar.
      const held = new Map<string, { before: number; unique: number; market: string; timeframe: Timeframe; symbol: string }>();
      let reported = 0;
      const { upsertBar, refreshSeries } = this.stmt;
      const touched = new Map<string, Touched>();
      const wholeSeries = new Map<string, Bars>();
      for (const { market, timeframe, symbols, replace } of batches) {
        if (!isTimeframe(timeframe)) throw new Error(`Unknown timeframe '${String(timeframe)}'`);
        for (const { symbol, bars } of symbols) {
          const key = `${market}\u0000${symbol}`;
          let state = touched.get(key);
          if (!state) {
            const before = new Map<Timeframe, { derived: boolean }>();
            for (const [tf, derived] of this.stmt.symbolState.all(market, symbol) as [Timeframe, number][]) {
              before.set(tf, { derived: derived === 1 });
            }
            state = { market, symbol, before, written: new Map() };
            touched.set(key, state);
          }
          const { time, open, high, low, close, volume } = bars;
          // An import at a timeframe served derived so far replaces the derived bars whole.
          const clear = replace === true || (state.before.get(timeframe)?.derived === true && !state.written.has(timeframe));
          const heldKey = `${timeframe}\u0000${key}`;
          let count = held.get(heldKey);
          if (!count) {
            const before = clear ? 0 : ((this.stmt.barsHeld.get(market, timeframe, symbol) as number | undefined) ?? 0);
            count = { before, unique: 0, market, timeframe, symbol };
            held.set(heldKey, count);
          }
          count.unique += uniqueBars(bars).time.length;
          if (clear) {
            this.stmt.deleteSymbol.run(market, timeframe, symbol);
            this.stmt.deleteSeries.run(market, timeframe, symbol);
          }
          for (let i = 0; i < time.length; i++) {
            upsertBar.run(market, timeframe, symbol, time[i], open[i], high[i], low[i], close[i], volume[i]);
          }
          if (time.length > 0) refreshSeries.run(0, market, timeframe, symbol);
          // A series written whole by this batch: its blocks are packed from the batch, not read back.
          const wholeKey = `${timeframe}\u0000${market}\u0000${symbol}`;
          if ((clear || !state.before.has(timeframe)) && !state.written.has(timeframe)) wholeSeries.set(wholeKey, uniqueBars(bars));
          else wholeSeries.delete(wholeKey);
          recordSpan(state.written, timeframe, time, clear);
          done += time.length;
          if (onProgress && done - reported >= 10_000) {
            reported = done;
            onProgress(done, total);
          }
        }
      }
      for (const state of touched.values()) {
        const jobs = this.derive(state);
        // Blocks follow the rows: every span written or derived is packed again.
        for (const [tf, span] of state.written) {
          const whole = wholeSeries.get(`${tf}\u0000${state.market}\u0000${state.symbol}`);
          if (whole) this.writeBlocks(state.market, tf, state.symbol, whole);
          else this.rebuildBlocks(state.market, tf, state.symbol, span.full ? -FULL_SPAN : span.from, span.full ? FULL_SPAN : span.to);
        }
        for (const job of jobs) {
          this.rebuildBlocks(state.market, job.coarse, state.symbol, job.full ? -FULL_SPAN : job.from, job.full ? FULL_SPAN : job.to - 1);
        }
      }
      let replaced = 0;
      for (const count of held.values()) {
        const after = (this.stmt.barsHeld.get(count.market, count.timeframe, count.symbol) as number | undefined) ?? 0;
        replaced += Math.max(0, count.unique - (after - count.before));
      }
      const version = this.stmt.bumpVersion.get() as number;
      return { written: done, replaced, symbols: touched.size, version };
    });
    const result = write.immediate();
    this.changes.publish(result.version, "local");
    onProgress?.(result.written, total);
    return result;
  }

  /** Rebuilds the derived timeframes a write touched for one symbol (inside the write's transaction). */
  private derive({ market, symbol, before, written }: Touched): DeriveJob[] {
    const after = new Map(before);
    for (const tf of written.keys()) after.set(tf, { derived: false });
    const jobs = planDerivation(before, after, written);
    for (const job of jobs) this.deriveJob(market, symbol, job);
    return jobs;
  }

  /** Writes one derivation job: the coarse bars over its span, aggregated from the fine ones. */
  private deriveJob(market: string, symbol: string, job: DeriveJob): void {
    {
      const from = job.full ? -FULL_SPAN : job.from;
      const to = job.full ? FULL_SPAN : job.to;
      this.stmt.deleteRange.run(market, job.coarse, symbol, from, to);
      const rows = this.stmt.readRange.all(market, job.fine, symbol, from, to) as number[][];
      const fine = rowsToBars(rows);
      const coarse = aggregateBars(fine, job.coarse);
      for (let i = 0; i < coarse.time.length; i++) {
        this.stmt.upsertBar.run(market, job.coarse, symbol, coarse.time[i], coarse.open[i], coarse.high[i], coarse.low[i], coarse.close[i], coarse.volume[i]);
      }
      this.stmt.deleteSeries.run(market, job.coarse, symbol);
      this.stmt.refreshSeries.run(1, market, job.coarse, symbol);
    }
  }

  /** Every symbol of the market holding bars at any timeframe, sorted. */
  async symbols(market: string): Promise<string[]> {
    return this.stmt.marketSymbols.all(market) as string[];
  }

  async markets(): Promise<string[]> {
    return this.stmt.markets.all() as string[];
  }

  async series(market?: string): Promise<SeriesInfo[]> {
    const rows = (market === undefined ? this.stmt.allSeries.all() : this.stmt.marketSeries.all(market)) as {
      market: string;
      timeframe: Timeframe;
      symbol: string;
      bars: number;
      first_time: number;
      last_time: number;
      derived: number;
    }[];
    return rows.map((r) => ({
      market: r.market,
      timeframe: r.timeframe,
      symbol: r.symbol,
      bars: r.bars,
      firstTime: r.first_time,
      lastTime: r.last_time,
      derived: r.derived === 1,
    }));
  }

  async barCount(): Promise<number> {
    return this.stmt.barCount.get() as number;
  }

  async dataVersion(): Promise<number> {
    return this.stmt.dataVersion.get() as number;
  }

  watch(listener: DataListener): () => void {
    return this.changes.subscribe(listener);
  }

  /** The data version when another connection has committed since the last look, else undefined (one cheap pragma). */
  private versionIfChangedByOthers(): number | undefined {
    if (!this.db.open) return undefined;
    const commits = this.stmt.commitsByOthers.get() as number;
    if (commits === this.lastCommitsByOthers) return undefined;
    this.lastCommitsByOthers = commits;
    return this.stmt.dataVersion.get() as number;
  }

  /**
   * Reads every table a request needs, checks that the file is still the one opened (a deleted
   * or replaced file goes on answering through the open handle while nothing it writes can be
   * found again), writes the quota file (a one-row heartbeat, committed: the only write a run
   * makes) and takes the bars file's write lock in a transaction it rolls back. A lock held by
   * another writer (an import) counts as writable. Rejects with a {@link HealthError} naming
   * what failed.
   */
  async health(): Promise<void> {
    try {
      this.stmt.health.get();
    } catch (error) {
      throw new HealthError("database", "cannot be read", { cause: error });
    }
    if (this.identity !== identityOf(this.file)) throw new HealthError("database", "the database file was deleted or replaced");
    // The quota file on its own: a read-only directory or a deleted quota file is named as such.
    this.accounts.readQuota();
    if (this.readonly) throw new HealthError("database", "opened read-only");
    try {
      await this.accounts.writeHeartbeat(Date.now());
    } catch (error) {
      if (error instanceof StoreBusyError) throw new HealthError("quota", "busy", { cause: error });
      throw new HealthError("quota", "cannot be written", { cause: error });
    }
    try {
      this.db.pragma("busy_timeout = 0");
      // Deferred: the write takes the bars file's lock only, never the quota file's.
      this.db.transaction(() => {
        this.stmt.probeWrite.run();
        throw ROLLBACK;
      })();
    } catch (error) {
      if (error !== ROLLBACK && !isBusy(error)) throw new HealthError("database", "cannot be written", { cause: error });
    } finally {
      this.db.pragma(`busy_timeout = ${this.timeouts.busyTimeoutMs}`);
    }
  }

  /**
   * Deletes a symbol's bars (in every market and timeframe unless narrowed), those opening at
   * or after `from` when given; in one transaction with the series catalog and the data version.
   */
  /**
   * Removes bars of one symbol's imported timeframes (all, or those opening at or after
   * `from`); the timeframes derived from them are then derived again from what remains (or
   * removed when nothing imported remains), and the blocks of every series touched repacked.
   */
  async deleteBars(request: DeleteBarsRequest): Promise<number> {
    const from = request.from ?? -FULL_SPAN;
    const { symbol } = request;
    let version: number | undefined;
    const remove = this.db.transaction((): number => {
      let deleted = 0;
      const markets = new Set<string>();
      for (const [market, timeframe] of this.stmt.seriesOf.all(symbol) as [string, Timeframe][]) {
        if (request.market !== undefined && request.market !== market) continue;
        if (request.timeframe !== undefined && request.timeframe !== timeframe) continue;
        const state = new Map((this.stmt.symbolState.all(market, symbol) as [Timeframe, number][]).map(([tf, d]) => [tf, d === 1]));
        // Derived bars follow the bars they are derived from; they are rebuilt below.
        if (state.get(timeframe) === true) continue;
        const n = this.stmt.deleteFrom.run(market, timeframe, symbol, from).changes;
        if (n === 0) continue;
        deleted += n;
        markets.add(market);
        this.stmt.deleteSeries.run(market, timeframe, symbol);
        this.stmt.refreshSeries.run(0, market, timeframe, symbol);
        this.rebuildBlocks(market, timeframe, symbol, -FULL_SPAN, FULL_SPAN);
      }
      for (const market of markets) {
        const after = new Map<Timeframe, { derived: boolean }>();
        for (const [tf, derived] of this.stmt.symbolState.all(market, symbol) as [Timeframe, number][]) {
          if (derived === 1) {
            // Every derived timeframe is rebuilt whole from the finest imported one left.
            this.stmt.deleteSymbol.run(market, tf, symbol);
            this.stmt.deleteSeries.run(market, tf, symbol);
            this.rebuildBlocks(market, tf, symbol, -FULL_SPAN, FULL_SPAN);
          } else after.set(tf, { derived: false });
        }
        for (const job of planDerivation(new Map(), after, new Map())) {
          this.deriveJob(market, symbol, job);
          this.rebuildBlocks(market, job.coarse, symbol, -FULL_SPAN, FULL_SPAN);
        }
      }
      if (deleted > 0) version = this.stmt.bumpVersion.get() as number;
      return deleted;
    });
    const deleted = remove.immediate();
    if (version !== undefined) this.changes.publish(version, "local");
    return deleted;
  }

  // ---- KeyStore and QuotaStore: the accounts on the same connection ----

  createAccount(id: string, tier: Tier, now: number): Promise<Account> {
    return this.accounts.createAccount(id, tier, now);
  }

  findAccount(id: string): Promise<Account | undefined> {
    return this.accounts.findAccount(id);
  }

  createKey(key: { hash: string; prefix: string; accountId: string; label: string | null }, now: number): Promise<KeyRecord> {
    return this.accounts.createKey(key, now);
  }

  findKeyByHash(hash: string): Promise<KeyRecord | undefined> {
    return this.accounts.findKeyByHash(hash);
  }

  revokeKey(hash: string, now: number): Promise<boolean> {
    return this.accounts.revokeKey(hash, now);
  }

  listKeys(): Promise<KeyRecord[]> {
    return this.accounts.listKeys();
  }

  reserve(accountId: string, day: string, limit: number): Promise<Reservation> {
    return this.accounts.reserve(accountId, day, limit);
  }

  release(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    return this.accounts.release(accountId, day, limit);
  }

  usage(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    return this.accounts.usage(accountId, day, limit);
  }
}

/** Thrown inside a transaction to roll it back on purpose (the health probe's write). */
const ROLLBACK = Symbol("rollback");

/** A block row `[..., n, time, ...series]` from `offset` to a {@link ReadBlock}. */
function readBlock(row: unknown[], offset: number): ReadBlock {
  return { n: row[offset] as number, time: row[offset + 1] as Uint8Array, columns: row.slice(offset + 2) as Uint8Array[] };
}

/** Oldest-first rows `[time, open, high, low, close, volume]` to columns. */
function rowsToBars(rows: number[][]): Bars {
  const n = rows.length;
  const out = { time: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    out.time[i] = r[0]!;
    out.open[i] = r[1]!;
    out.high[i] = r[2]!;
    out.low[i] = r[3]!;
    out.close[i] = r[4]!;
    out.volume[i] = r[5]!;
  }
  return out;
}

/** Newest-first raw rows `[time, ...series]` to oldest-first columns; unread series are NaN. */
function columns(rows: SqlRow[], series: readonly RawSeries[]): Bars {
  const n = rows.length;
  const time = new Float64Array(n);
  const filled: Partial<Record<RawSeries, Float64Array>> = {};
  for (const name of series) filled[name] = new Float64Array(n);
  const targets = series.map((name) => filled[name]!);
  for (let r = 0; r < n; r++) {
    const row = rows[r]!;
    const i = n - 1 - r;
    time[i] = row[0] as number;
    for (let s = 0; s < targets.length; s++) targets[s]![i] = row[s + 1] as number;
  }
  const missing = (): Float64Array => nanColumn(n);
  return {
    time,
    open: filled.open ?? missing(),
    high: filled.high ?? missing(),
    low: filled.low ?? missing(),
    close: filled.close ?? missing(),
    volume: filled.volume ?? missing(),
  };
}

const nanColumns = new Map<number, Float64Array>();

/** One shared NaN column per length for series a query does not read (never written to). */
function nanColumn(length: number): Float64Array {
  let column = nanColumns.get(length);
  if (!column) {
    column = new Float64Array(length).fill(Number.NaN);
    if (nanColumns.size < 1024) nanColumns.set(length, column);
  }
  return column;
}
