/**
 * The embedded bar store: bars in one SQLite file (better-sqlite3, WAL), kept as the storage
 * engine lays them out (`blocks.ts`, `engine/`), written through its one write path. It knows
 * bars only: the accounts, watchlists and alerts that share its file and connection are
 * composed beside it by `openStore` (src/open/), which also names their rooms of the schema.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { Timeframe } from "../types.js";
import { BARS_ROOM, FEEDS_ROOM, SERIES_OWNERS_ROOM } from "./rooms.js";
import { type SqliteRoom, migrateSqlite } from "../db/sqlite.js";
import { FORGET_EMPTY_FEEDS_SQL, type FeedRow, LIST_FEEDS_SQL, RECORD_FEED_SQL, feedRecord, feedValues } from "./feeds.js";
import type { BarStore, DataListener, FeedRecord, LatestBarsRequest, SeriesInfo, SymbolBars, SymbolWrite, ChangesSince } from "./store.js";
import { ChangeFeed } from "./watch.js";
import { HEALTH_SQL, HealthError } from "./store.js";
import { type BusyTimeouts, identityOf, isBusy } from "./sqlite-database.js";
import { type Columns, blockOf, encodeColumns, sliceColumns } from "./blocks.js";
import { SqliteBars } from "./sqlite-bars.js";
import { type Sequence, type SequenceRequest, runSliced, runSync } from "./engine/io.js";
import { upgradeTo4 as upgradeSteps } from "./upgrade-v4.js";
import { EngineStore } from "./engine-store.js";
import { type SeriesClaim, checkClaim, seriesNamed } from "./series-owners.js";

/** The bar store's rooms of the schema, in the order a new file gets them. */
export const SQLITE_BAR_ROOMS: readonly SqliteRoom[] = [{ ...BARS_ROOM, upgrades: { sqlite: { 4: upgradeTo4 } } }, SERIES_OWNERS_ROOM, FEEDS_ROOM];

/**
 * Version 4 of the bars' room on SQLite: blocks built first for rows a version-3 store never
 * packed, then the move of `upgrade-v4.ts`, answered here.
 */
function upgradeTo4(db: Database.Database): void {
  const built = db.prepare("SELECT value FROM meta WHERE key = 'blocks_built'").pluck().get() as number | undefined;
  if (built === 0) packLegacyRows(db);
  // Prepared after the swap: its statements read the version-4 tables.
  let bars: SqliteBars | undefined;
  runSync(upgradeSteps(), (request) => {
    switch (request.kind) {
      case "v3-series":
        return db.prepare("SELECT market, timeframe, symbol, bars, first_time AS firstTime, last_time AS lastTime, derived FROM series").all();
      case "v3-blocks": {
        const { market, timeframe, symbol } = request.series;
        return db.prepare("SELECT block, time, open, high, low, close, volume FROM bar_blocks WHERE market = ? AND timeframe = ? AND symbol = ? ORDER BY block").raw(true).all(market, timeframe, symbol);
      }
      case "v4-block": {
        const { market, timeframe, symbol } = request.series;
        db.prepare("INSERT INTO bar_blocks_v4 (market, timeframe, symbol, block, n, bars) VALUES (?, ?, ?, ?, ?, ?)").run(market, timeframe, symbol, request.block, request.columns.time.length, encodeColumns(request.columns));
        return undefined;
      }
      case "v4-series": {
        const r = request.series;
        db.prepare("INSERT INTO series_v4 (market, timeframe, symbol, derived, bars, first_time, last_time, sealed_block, tail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
          .run(r.market, r.timeframe, r.symbol, r.derived, r.bars, r.firstTime, r.lastTime, request.sealedBlock, encodeColumns(request.tail));
        return undefined;
      }
      case "v4-swap":
        db.exec(`
          DROP TABLE bars;
          DROP TABLE series;
          DROP TABLE bar_blocks;
          ALTER TABLE series_v4 RENAME TO series;
          CREATE UNIQUE INDEX series_key ON series (market, timeframe, symbol);
          CREATE INDEX series_symbol ON series (market, symbol);
          ALTER TABLE bar_blocks_v4 RENAME TO bar_blocks;
          CREATE UNIQUE INDEX bar_blocks_key ON bar_blocks (market, timeframe, symbol, block);
          DELETE FROM meta WHERE key = 'blocks_built';
        `);
        return undefined;
      case "v4-derived":
        return db.prepare("SELECT DISTINCT market, symbol FROM series WHERE derived = 1 ORDER BY market, symbol").raw(true).all();
      default:
        return (bars ??= new SqliteBars(db)).answer(request);
    }
  });
}

/** Blocks for rows written before migration 3 whose blocks were never built (a store migrated to 3 but never opened since). */
function packLegacyRows(db: Database.Database): void {
  db.exec("DELETE FROM bar_blocks");
  const series = db.prepare("SELECT market, timeframe, symbol FROM series").raw(true).all() as [string, Timeframe, string][];
  const read = db.prepare("SELECT time, open, high, low, close, volume FROM bars WHERE market = ? AND timeframe = ? AND symbol = ? ORDER BY time").raw(true);
  const put = db.prepare("INSERT INTO bar_blocks (market, timeframe, symbol, block, n, time, open, high, low, close, volume) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const [market, timeframe, symbol] of series) {
    const rows = read.all(market, timeframe, symbol) as number[][];
    const c: Columns = {
      time: Float64Array.from(rows, (r) => r[0]!),
      open: Float64Array.from(rows, (r) => r[1]!),
      high: Float64Array.from(rows, (r) => r[2]!),
      low: Float64Array.from(rows, (r) => r[3]!),
      close: Float64Array.from(rows, (r) => r[4]!),
      volume: Float64Array.from(rows, (r) => r[5]!),
    };
    let start = 0;
    while (start < rows.length) {
      const block = blockOf(c.time[start]!, timeframe);
      let end = start + 1;
      while (end < rows.length && blockOf(c.time[end]!, timeframe) === block) end++;
      const part = sliceColumns(c, start, end);
      const bytes = (x: Float64Array): Buffer => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
      put.run(market, timeframe, symbol, block, end - start, bytes(part.time), bytes(part.open), bytes(part.high), bytes(part.low), bytes(part.close), bytes(part.volume));
      start = end;
    }
  }
}

/** Options of the `SqliteBarStore` constructor. */
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
  /** How often `SqliteBarStore.watch` looks for other connections' writes, in ms. Default 200. */
  watchIntervalMs?: number;
  /**
   * How long a write on the service's request path works before it lets other requests in, in
   * ms (`transact`'s slices). Default 10; 0 lets them in at every pause of the write (tests that
   * must see a write sliced whatever its speed).
   */
  writeSliceMs?: number;
}


/**
 * {@link BarStore} on one SQLite file. Calls run synchronously inside better-sqlite3 and
 * resolve at once; a closed or broken database rejects.
 */
export class SqliteBarStore extends EngineStore implements BarStore {
  /** The database file as given (`:memory:` for an in-memory database). */
  readonly file: string;
  /** The backend, for callers that hold a store opened by URL. */
  readonly backend = "sqlite" as const;
  /** The connection, which the rooms composed beside the bars share (`openStore`). */
  protected readonly db: Database.Database;
  private readonly stmt;
  private readonly bars: SqliteBars;
  /** Watchers of writes: this object's at once, other connections' by `PRAGMA data_version` on a timer. */
  protected readonly changes: ChangeFeed;
  private lastCommitsByOthers = -1;
  /** This connection's answers to a write's requests. */
  private readonly main: SqliteWriter;
  protected readonly timeouts: BusyTimeouts;
  /** See {@link SqliteStoreOptions.writeSliceMs}. */
  private readonly writeSliceMs: number;
  /** Device and inode of the file when it was opened: `/health` notices a deleted or replaced file. */
  private readonly identity: string | undefined;
  protected readonly readonly: boolean;
  /** The connection of sliced writes, opened on the first. */
  private writer: SqliteWriter | undefined;

  /** Opens (and, unless read-only, creates and migrates to `rooms`: the bars' and those composed beside them) the file. */
  constructor(file: string, options: SqliteStoreOptions = {}, rooms: readonly SqliteRoom[] = SQLITE_BAR_ROOMS) {
    super();
    this.file = file;
    this.readonly = options.readonly ?? false;
    if (file !== ":memory:" && !options.readonly) mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    this.timeouts = { busyTimeoutMs: options.busyTimeoutMs ?? 5000, requestBusyMs: options.requestBusyMs ?? 1000 };
    this.writeSliceMs = options.writeSliceMs ?? WRITE_SLICE_MS;
    this.db.pragma(`busy_timeout = ${this.timeouts.busyTimeoutMs}`);
    if (!options.readonly) {
      // A new file gets 16 KiB pages (a block row fits one page); an existing file keeps its own.
      this.db.pragma("page_size = 16384");
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.pragma(WAL_AUTOCHECKPOINT);
      this.db.pragma("foreign_keys = ON");
      migrateSqlite(this.db, rooms);
    }
    this.identity = identityOf(file);
    this.changes = new ChangeFeed(() => this.versionIfChangedByOthers(), options.watchIntervalMs ?? 200);
    this.bars = new SqliteBars(this.db);
    const db = this.db;
    this.stmt = {
      bumpVersion: db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'data_version' RETURNING value").pluck(),
      commitsByOthers: db.prepare("PRAGMA data_version").pluck(),
      dataVersion: db.prepare("SELECT value FROM meta WHERE key = 'data_version'").pluck(),
      marketSymbols: db.prepare("SELECT DISTINCT symbol FROM series WHERE market = ? ORDER BY symbol").pluck(),
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
      marketsOf: db.prepare("SELECT DISTINCT market FROM series WHERE symbol = ? ORDER BY market").pluck(),
    };
    this.main = { db, bars: this.bars, bumpVersion: this.stmt.bumpVersion, dataVersion: this.stmt.dataVersion };
  }

  /** Closes the connection; later calls reject. Async like every store's, so callers await it whatever the backend. */
  async close(): Promise<void> {
    this.changes.close();
    if (this.writer?.db.open) this.writer.db.close();
    if (this.db.open) this.db.close();
  }

  /** True while the connection is open; false after `close`. */
  get open(): boolean {
    return this.db.open;
  }

  // ---- BarStore ----

  async latestBars(request: LatestBarsRequest): Promise<SymbolBars[]> {
    // One read transaction: the catalog rows and the blocks they name are of one version.
    return this.db.transaction(() => this.bars.latestBars(request))();
  }

  async latestBarsWithRoom(request: LatestBarsRequest, room: number): Promise<SymbolBars[]> {
    return this.db.transaction(() => this.bars.latestBars(request, room))();
  }

  /**
   * Runs a write's sequence in one transaction that takes the write lock at once. On the
   * service's request path (`turn`), in slices on a connection of its own (readers on this one
   * see only committed bars, WAL), one transaction held open across the slices, with `turn`
   * awaited whenever `writeSliceMs` of work has passed. Other writers of the file wait
   * for it as for any writer; the quota counters live in another file and never do.
   */
  protected async transact<T>(sequence: Sequence<T>, turn?: () => Promise<void>): Promise<T> {
    if (!turn || this.file === ":memory:" || this.readonly) {
      return this.db.transaction(() => runSync(sequence, (request) => answerOn(this.main, request))).immediate();
    }
    const w = (this.writer ??= this.openWriter());
    this.beforeWriteLock();
    w.db.exec("BEGIN IMMEDIATE");
    try {
      const done = await runSliced(sequence, (request) => answerOn(w, request), turn, this.writeSliceMs);
      w.db.exec("COMMIT");
      return done;
    } catch (error) {
      if (w.db.inTransaction) w.db.exec("ROLLBACK");
      throw error;
    }
  }

  /**
   * Called before a sliced write takes the file's lock on its own connection: what else uses
   * this connection meanwhile (the quota counters of runs, composed beside the bars) attaches
   * what it needs now, for an attach would wait for that lock. Nothing for bars alone.
   */
  protected beforeWriteLock(): void {}

  /** The connection of sliced writes: the same file and settings as this one's. */
  private openWriter(): SqliteWriter {
    const db = new Database(this.file, { fileMustExist: true });
    db.pragma(`busy_timeout = ${this.timeouts.busyTimeoutMs}`);
    db.pragma("synchronous = NORMAL");
    db.pragma(WAL_AUTOCHECKPOINT);
    db.pragma("foreign_keys = ON");
    return {
      db,
      bars: new SqliteBars(db),
      bumpVersion: db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'data_version' RETURNING value").pluck(),
      dataVersion: db.prepare("SELECT value FROM meta WHERE key = 'data_version'").pluck(),
    };
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

  async recordFeeds(records: readonly FeedRecord[]): Promise<void> {
    const record = this.db.prepare(RECORD_FEED_SQL);
    this.db.transaction(() => {
      for (const r of records) record.run(...feedValues(r));
    }).immediate();
  }

  protected async forgetEmptyFeeds(symbol: string): Promise<void> {
    this.db.prepare(FORGET_EMPTY_FEEDS_SQL).run(symbol);
  }

  async feeds(market?: string): Promise<FeedRecord[]> {
    const rows = (market === undefined ? this.db.prepare(LIST_FEEDS_SQL).all() : this.db.prepare(`${LIST_FEEDS_SQL} WHERE market = ?`).all(market)) as FeedRow[];
    return rows.map(feedRecord);
  }

  async barCount(): Promise<number> {
    return this.stmt.barCount.get() as number;
  }

  async dataVersion(): Promise<number> {
    return this.stmt.dataVersion.get() as number;
  }

  async barsSince(market: string, timeframe: Timeframe, since: readonly { symbol: string; from: number }[]): Promise<SymbolBars[]> {
    return this.db.transaction(() => this.bars.barsSince(market, timeframe, since))();
  }

  async changesSince(version: number): Promise<ChangesSince> {
    return this.db.transaction((): ChangesSince => {
      const current = this.stmt.dataVersion.get() as number;
      const writes = this.bars.changesSince(version);
      return { version: current, touched: writes === null || (writes.at(-1)?.version ?? version) !== current ? null : writes.flatMap((w) => w.touched) };
    })();
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
   * Reads every table of the bars, checks that the file is still the one opened (a deleted or
   * replaced file goes on answering through the open handle while nothing it writes can be
   * found again) and takes the file's write lock in a transaction it rolls back. A lock held
   * by another writer (an import) counts as writable. Rejects with a {@link HealthError}
   * naming what failed.
   */
  async health(): Promise<void> {
    try {
      this.stmt.health.get();
    } catch (error) {
      throw new HealthError("database", "cannot be read", { cause: error });
    }
    if (this.identity !== identityOf(this.file)) throw new HealthError("database", "the database file was deleted or replaced");
    if (this.readonly) throw new HealthError("database", "opened read-only");
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

  protected async marketsOf(symbol: string): Promise<string[]> {
    return this.stmt.marketsOf.all(symbol) as string[];
  }
}

/**
 * Pages the write-ahead log may hold before a commit copies them into the file (SQLite's default
 * is 1,000): an append of one bar to 10,000 symbols dirties every page of the catalog (40,000
 * rows with their tails, about 1,200 pages of 16 KiB), so at the default every append was copied
 * once more at its commit; at 4,000 (64 MB of log at most) a page rewritten by several appends
 * is copied once.
 */
const WAL_AUTOCHECKPOINT = "wal_autocheckpoint = 4000";

/** How long a sliced write works before it lets other requests in (see `SqliteBarStore.transact`). */
const WRITE_SLICE_MS = 10;

/** A connection that writes: the store's own, or the second one of writes done in slices. */
interface SqliteWriter {
  db: Database.Database;
  bars: SqliteBars;
  bumpVersion: Database.Statement;
  dataVersion: Database.Statement;
}

/**
 * Answers a write's request on `w`, inside its transaction: the write lock is the
 * transaction's own (taken at its start), so `lock` asks nothing more.
 */
function answerOn(w: SqliteWriter, request: SequenceRequest): unknown {
  switch (request.kind) {
    case "claim":
      claimSeries(w.db, request.writes, request.claim);
      return undefined;
    case "lock":
      return undefined;
    case "version":
      return w.dataVersion.get() as number;
    case "bump":
      return w.bumpVersion.get() as number;
    case "log":
      w.bars.logChange(request.version, request.touched);
      return undefined;
    default:
      return w.bars.answer(request);
  }
}

/** Checks and records the series a write creates for `claim`'s account (inside the write's transaction on `db`). */
function claimSeries(db: Database.Database, writes: readonly SymbolWrite[], claim: SeriesClaim): void {
  const exists = db.prepare("SELECT 1 FROM series WHERE market = ? AND timeframe = ? AND symbol = ?").pluck();
  const created = seriesNamed(writes).filter((s) => exists.get(s.market, s.timeframe, s.symbol) === undefined);
  const held =
    created.length === 0
      ? 0
      : (db
          .prepare(
            "SELECT count(*) FROM series_owners o WHERE o.account_id = ? AND EXISTS (SELECT 1 FROM series s WHERE s.market = o.market AND s.timeframe = o.timeframe AND s.symbol = o.symbol)",
          )
          .pluck()
          .get(claim.account) as number);
  checkClaim(claim, created.length, held);
  // A series deleted and pushed again belongs to its new creator.
  const own = db.prepare("INSERT OR REPLACE INTO series_owners (market, timeframe, symbol, account_id, created_at) VALUES (?, ?, ?, ?, ?)");
  for (const s of created) own.run(s.market, s.timeframe, s.symbol, claim.account, claim.now);
}

/** Thrown inside a transaction to roll it back on purpose (the health probe's write). */
const ROLLBACK = Symbol("rollback");

