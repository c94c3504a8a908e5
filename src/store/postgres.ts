/**
 * The scale-out bar store: PostgreSQL through a `pg` connection pool. Several `xql serve`
 * replicas share one database; it implements the same contract as the embedded SQLite bar
 * store ({@link BarStore}), so routes never know which one they talk to. It knows bars only:
 * the accounts, watchlists and alerts on the same pool are composed beside it by `openStore`
 * (src/open/), which also names their rooms of the schema.
 *
 * - Schema in the rooms' numbered migrations (src/db), applied once under an advisory lock,
 *   so replicas starting together never race.
 * - "The latest N bars of every symbol" is one query per plan source: a LATERAL
 *   `ORDER BY time DESC LIMIT n` per symbol of the series catalog, each symbol's columns
 *   aggregated into binary float8/int8 arrays (`array_send`), so 10,000 symbols are 10,000
 *   rows rather than millions.
 * - Writes go in one transaction with `unnest` of whole columns, and bump `data_version`
 *   in that same transaction.
 */
import pg from "pg";
import type { Timeframe } from "../types.js";
import type { BarStore, ChangesSince, FeedRecord, DataListener, LatestBarsRequest, SeriesInfo, SymbolBars, SymbolWrite } from "./store.js";
import { ChangeFeed } from "./watch.js";
import { BARS_ROOM, FEEDS_ROOM, SERIES_OWNERS_ROOM } from "./rooms.js";
import { type PostgresRoom, migratePostgres } from "../db/postgres.js";
import { FORGET_EMPTY_FEEDS_SQL, type FeedRow, LIST_FEEDS_SQL, RECORD_FEED_SQL, feedRecord, feedValues } from "./feeds.js";
import { redactUrl } from "../redact.js";
import { HEALTH_SQL, HealthError } from "./store.js";
import { encodeColumns } from "./blocks.js";
import { type Sequence, runAsync } from "./engine/io.js";
import { EngineStore } from "./engine-store.js";
import { upgradeTo4 as upgradeSteps } from "./upgrade-v4.js";
import { type SeriesClaim, checkClaim, seriesNamed } from "./series-owners.js";
import { answer, barsSince, changesSince, latestBars, logChange } from "./postgres-bars.js";

/** The bar store's rooms of the schema, in the order a new database gets them. */
export const POSTGRES_BAR_ROOMS: readonly PostgresRoom[] = [{ ...BARS_ROOM, upgrades: { postgres: { 4: upgradeTo4 } } }, SERIES_OWNERS_ROOM, FEEDS_ROOM];

/** Options of the PostgreSQL store: pool size and the statement timeouts of docs/deployment.md, "Limits and guards". */
export interface PostgresStoreOptions {
  /** Largest number of pooled connections. Default 10. */
  max?: number;
  /** How long to wait for a connection (from the pool or a new one), ms. Default 5000. */
  connectionTimeoutMillis?: number;
  /** An idle pooled connection is closed after this many ms. Default 30000. */
  idleTimeoutMillis?: number;
  /** Server-side limit on each statement, ms. Default 15000. */
  statementTimeoutMillis?: number;
  /** Client-side limit on each query, ms (covers a server that stops answering). Default 20000. */
  queryTimeoutMillis?: number;
  /**
   * Client-side limit on each quota statement and the health probe, ms: they are on every
   * run's path, so a stalled server costs a run at most this long before it answers 500. Default 1000.
   */
  requestTimeoutMillis?: number;
  /** How often the store's `watch` reads the data version beside LISTEN, in ms. Default 1000. */
  watchIntervalMs?: number;
  /** Told about errors of idle pooled connections (a restart of the server, say). */
  onError?: (error: Error) => void;
}

/** The NOTIFY channel every write of bars announces its data version on. */
const DATA_CHANNEL = "xql_data";

/** How long a write's engine works before the event loop hears PostgreSQL's replies to the rows in flight. */
const TURN_MS = 5;

/** Thrown inside a transaction to roll it back on purpose (the health probe's write). */
const ROLLBACK = Symbol("rollback");

// bigint columns (times, counts) come back as JS numbers: ms times fit in 2^53.
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === 20 && format !== "binary") return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as "text");
  },
} as pg.CustomTypesConfig;

/**
 * {@link BarStore} on PostgreSQL. The schema is migrated on first use (or by `open`); a
 * database that does not answer makes calls reject after the connection timeout, and they
 * work again once it is back.
 */
export class PostgresBarStore extends EngineStore implements BarStore {
  /** Where the store lives, without a password: for messages. */
  readonly file: string;
  /** The backend, for callers that hold a store opened by URL. */
  readonly backend = "postgres" as const;
  readonly pool: pg.Pool;
  private readonly requestTimeoutMillis: number;
  private migrated: Promise<void> | undefined;
  private closed = false;
  /** Watchers of writes: this object's at once, other replicas' by LISTEN/NOTIFY (and the version, read on a timer). */
  protected readonly changes: ChangeFeed;
  private listener: pg.Client | undefined;
  private readonly url: string;
  /** The rooms of the schema the database is migrated to: the bars' and those composed beside them. */
  private readonly rooms: readonly PostgresRoom[];

  /** Connects lazily; `rooms` are migrated on first use. */
  constructor(url: string, options: PostgresStoreOptions = {}, rooms: readonly PostgresRoom[] = POSTGRES_BAR_ROOMS) {
    super();
    this.rooms = rooms;
    this.file = redactUrl(url);
    this.url = url;
    this.changes = new ChangeFeed(
      async () => {
        if (!this.listener && this.changes && !this.closed) void this.listen(true);
        return this.closed ? undefined : this.dataVersion();
      },
      options.watchIntervalMs ?? 1000,
      (active) => void this.listen(active),
    );
    this.requestTimeoutMillis = options.requestTimeoutMillis ?? 1000;
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
      idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
      statement_timeout: options.statementTimeoutMillis ?? 15_000,
      query_timeout: options.queryTimeoutMillis ?? 20_000,
      application_name: "xql",
      types,
    });
    // An idle client's error (the server restarted) must not crash the process; the pool
    // drops that client and the next call connects afresh.
    this.pool.on("error", (error) => options.onError?.(error));
  }

  /** Connects and migrates; rejects when the database cannot be reached. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresBarStore> {
    return opened(new PostgresBarStore(url, options));
  }

  /** Resolves once the schema is current; a failed attempt is tried again on the next call. */
  ready(): Promise<void> {
    if (!this.migrated) {
      this.migrated = this.migrate().catch((error: unknown) => {
        this.migrated = undefined;
        throw error;
      });
    }
    return this.migrated;
  }

  private async migrate(): Promise<void> {
    await this.transaction((client) => migratePostgres(client, this.rooms));
  }

  /** Ends the pool; later calls reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.changes.close();
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  get open(): boolean {
    return !this.closed;
  }

  protected async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    await this.ready();
    return this.pool.query<R>(text, values);
  }

  /** A statement on the request path (quota): bounded by `requestTimeoutMillis`. */
  protected async quick<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    await this.ready();
    return this.pool.query<R>({ text, values, query_timeout: this.requestTimeoutMillis } as pg.QueryConfig);
  }

  protected async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  // ---- BarStore ----

  async latestBars(request: LatestBarsRequest): Promise<SymbolBars[]> {
    return this.snapshot((client) => latestBars(client, request));
  }

  async latestBarsWithRoom(request: LatestBarsRequest, room: number): Promise<SymbolBars[]> {
    return this.snapshot((client) => latestBars(client, request, room));
  }

  /** Reads in one REPEATABLE READ transaction: the catalog rows and the blocks they name are of one version. */
  private async snapshot<T>(read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready();
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const result = await read(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => (broken = true));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Checks and records the series a write creates for `claim`'s account, inside the write's
   * transaction; the account's lock serialises its writes across markets and replicas.
   */
  private async claimSeries(client: pg.PoolClient, writes: readonly SymbolWrite[], claim: SeriesClaim): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [SERIES_LOCK, claim.account]);
    const named = seriesNamed(writes);
    const { rows: created } = await client.query<{ market: string; timeframe: string; symbol: string }>(
      `SELECT r.market, r.timeframe, r.symbol FROM unnest($1::text[], $2::text[], $3::text[]) AS r(market, timeframe, symbol)
        WHERE NOT EXISTS (SELECT 1 FROM series s WHERE s.market = r.market AND s.timeframe = r.timeframe AND s.symbol = r.symbol)`,
      [named.map((s) => s.market), named.map((s) => s.timeframe), named.map((s) => s.symbol)],
    );
    let held = 0;
    if (created.length > 0) {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM series_owners o WHERE o.account_id = $1
          AND EXISTS (SELECT 1 FROM series s WHERE s.market = o.market AND s.timeframe = o.timeframe AND s.symbol = o.symbol)`,
        [claim.account],
      );
      held = Number(rows[0]!.n);
    }
    checkClaim(claim, created.length, held);
    if (created.length === 0) return;
    // A series deleted and pushed again belongs to its new creator.
    await client.query(
      `INSERT INTO series_owners (market, timeframe, symbol, account_id, created_at)
        SELECT r.market, r.timeframe, r.symbol, $4, $5 FROM unnest($1::text[], $2::text[], $3::text[]) AS r(market, timeframe, symbol)
        ON CONFLICT (market, timeframe, symbol) DO UPDATE SET account_id = EXCLUDED.account_id, created_at = EXCLUDED.created_at`,
      [created.map((s) => s.market), created.map((s) => s.timeframe), created.map((s) => s.symbol), claim.account, claim.now],
    );
  }

  /**
   * Runs a write's sequence in one transaction on one client of the pool. Every step is a round
   * trip: the event loop is free between them (no `turn` needed). Writers of one market take its
   * advisory lock in turn (`lock`), so replicas writing the same series never interleave. A
   * version advanced by a transaction that then failed is abandoned.
   */
  protected async transact<T>(sequence: Sequence<T>): Promise<T> {
    await this.ready();
    let version: number | undefined;
    try {
      return await this.transaction(async (client) => {
        // The writes in flight, one at a time: the engine builds the next rows while PostgreSQL
        // applies the last ones. Every other request waits for them first (a read sees them),
        // and so does the commit; a failed write fails the request after it.
        let inFlight: Promise<unknown> | undefined;
        const settle = async (): Promise<void> => {
          const sent = inFlight;
          inFlight = undefined;
          await sent;
        };
        const done = await runAsync(sequence, async (request) => {
          if (request.kind === "write") {
            await settle();
            inFlight = answer(client, request);
            // Raised where it is waited for; never an unhandled rejection meanwhile.
            inFlight.catch(() => undefined);
            return undefined;
          }
          await settle();
          switch (request.kind) {
            case "claim":
              return this.claimSeries(client, request.writes, request.claim);
            case "lock":
              for (const market of request.markets) await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [WRITE_LOCK, market]);
              return undefined;
            case "version": {
              const { rows } = await client.query<{ value: number }>("SELECT value FROM meta WHERE key = 'data_version'");
              return Number(rows[0]!.value);
            }
            case "bump":
              version = await this.bumpVersion(client);
              return version;
            case "log":
              return logChange(client, request.version, request.touched);
            default:
              return answer(client, request);
          }
        }, TURN_MS);
        await settle();
        return done;
      });
    } catch (error) {
      if (version !== undefined) this.changes.abandon(version);
      throw error;
    }
  }

  protected async marketsOf(symbol: string): Promise<string[]> {
    await this.ready();
    const { rows } = await this.pool.query<{ market: string }>("SELECT DISTINCT market FROM series WHERE symbol = $1 ORDER BY market", [symbol]);
    return rows.map((r) => r.market);
  }

  /**
   * Advances the data version inside a write's transaction and tells listeners of every replica
   * on commit. This store's own listeners are told by the caller once the commit returns (with
   * what it touched), so the version is expected here: its notification may arrive first. A
   * caller whose transaction then fails abandons it.
   */
  private async bumpVersion(client: pg.PoolClient): Promise<number> {
    const { rows } = await client.query<{ value: number }>("UPDATE meta SET value = value + 1 WHERE key = 'data_version' RETURNING value");
    const version = Number(rows[0]!.value);
    this.changes.expect(version);
    // NOTIFY is delivered at commit, and not at all on a rollback.
    await client.query("SELECT pg_notify($1, $2)", [DATA_CHANNEL, String(version)]);
    return version;
  }

  async barsSince(market: string, timeframe: Timeframe, since: readonly { symbol: string; from: number }[]): Promise<SymbolBars[]> {
    return this.snapshot((client) => barsSince(client, market, timeframe, since));
  }

  async changesSince(version: number): Promise<ChangesSince> {
    await this.ready();
    return changesSince(this.pool, version);
  }

  async symbols(market: string): Promise<string[]> {
    const { rows } = await this.query<{ symbol: string }>(
      `SELECT symbol FROM series WHERE market = $1 GROUP BY symbol ORDER BY symbol COLLATE "C"`,
      [market],
    );
    return rows.map((r) => r.symbol);
  }

  async markets(): Promise<string[]> {
    const { rows } = await this.query<{ market: string }>(
      `SELECT market FROM series GROUP BY market ORDER BY market COLLATE "C"`,
    );
    return rows.map((r) => r.market);
  }

  async recordFeeds(records: readonly FeedRecord[]): Promise<void> {
    if (records.length === 0) return;
    let n = 0;
    const one = RECORD_FEED_SQL.replace(/\?/g, () => `$${++n}`);
    // One statement per record in one round trip each; a sync records at most a batch of pairs.
    for (const r of records) await this.query(one, feedValues(r));
  }

  protected async forgetEmptyFeeds(symbol: string): Promise<void> {
    await this.query(FORGET_EMPTY_FEEDS_SQL.replace("?", "$1"), [symbol]);
  }

  async feeds(market?: string): Promise<FeedRecord[]> {
    const { rows } = market === undefined ? await this.query<FeedRow>(LIST_FEEDS_SQL) : await this.query<FeedRow>(`${LIST_FEEDS_SQL} WHERE market = $1`, [market]);
    return rows.map(feedRecord);
  }

  async series(market?: string): Promise<SeriesInfo[]> {
    const { rows } =
      market === undefined
        ? await this.query<SeriesRow>(
            `SELECT market, timeframe, symbol, bars, first_time, last_time, derived FROM series
             ORDER BY market COLLATE "C", timeframe COLLATE "C", symbol COLLATE "C"`,
          )
        : await this.query<SeriesRow>(
            `SELECT market, timeframe, symbol, bars, first_time, last_time, derived FROM series WHERE market = $1
             ORDER BY timeframe COLLATE "C", symbol COLLATE "C"`,
            [market],
          );
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
    const { rows } = await this.query<{ n: number }>("SELECT coalesce(sum(bars), 0)::bigint AS n FROM series WHERE derived = 0");
    return rows[0]!.n;
  }

  async dataVersion(): Promise<number> {
    const { rows } = await this.query<{ value: number }>("SELECT value FROM meta WHERE key = 'data_version'");
    return Number(rows[0]!.value);
  }

  watch(listener: DataListener): () => void {
    return this.changes.subscribe(listener);
  }

  /**
   * While someone watches, one connection outside the pool LISTENs for other replicas' writes
   * (each write NOTIFYs at commit); the feed's timer also reads the version, which covers a
   * LISTEN connection lost to a restart until it is made again.
   */
  private async listen(active: boolean): Promise<void> {
    const current = this.listener;
    this.listener = undefined;
    if (current) await current.end().catch(() => undefined);
    if (!active || this.closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: "xql-watch", types });
    this.listener = client;
    client.on("error", () => {
      // The timer keeps reading the version; the next watch interval makes a new connection.
      if (this.listener === client) this.listener = undefined;
    });
    client.on("notification", (message) => {
      const version = Number(message.payload);
      if (Number.isFinite(version)) this.changes.publish(version, "remote");
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${DATA_CHANNEL}`);
    } catch {
      if (this.listener === client) this.listener = undefined;
      await client.end().catch(() => undefined);
    }
  }

  /**
   * Reads every table a request needs, then writes in a transaction it rolls back (a server
   * in read-only mode, a standby or a full disk refusing writes fails here), each bounded by
   * `requestTimeoutMillis`. Rejects with a {@link HealthError} naming the database.
   */
  async health(): Promise<void> {
    try {
      await this.quick(HEALTH_SQL);
    } catch (error) {
      throw new HealthError("database", "cannot be read", { cause: error });
    }
    try {
      await this.transaction(async (client) => {
        await client.query({
          text: "UPDATE meta SET value = value WHERE key = 'data_version'",
          query_timeout: this.requestTimeoutMillis,
        } as pg.QueryConfig);
        throw ROLLBACK;
      });
    } catch (error) {
      if (error !== ROLLBACK) throw new HealthError("database", "cannot be written", { cause: error });
    }
  }
}

/** `store` once connected and migrated; closed, and the error rethrown, when the database cannot be reached. */
export async function opened<S extends PostgresBarStore>(store: S): Promise<S> {
  try {
    await store.ready();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

interface SeriesRow {
  market: string;
  timeframe: Timeframe;
  symbol: string;
  bars: number;
  first_time: number;
  last_time: number;
  derived: number;
}

/** The advisory lock class of bar writes (with the market's hash as the second key): "xql" in ASCII, then 2. */
const WRITE_LOCK = 0x78716c02;
/** The advisory lock class of one account's series claims (its key: the account id's hash; apart from the alerts' 0x78716c07). */
const SERIES_LOCK = 0x78716c70;

/**
 * Version 4 of the bars' room on PostgreSQL: blocks built first (in SQL) for rows a version-3
 * database never packed, then the move of `upgrade-v4.ts`, answered here.
 */
async function upgradeTo4(client: pg.PoolClient): Promise<void> {
  const built = await client.query<{ value: number }>("SELECT value FROM meta WHERE key = 'blocks_built'");
  if (Number(built.rows[0]?.value ?? 1) === 0) {
    await client.query("DELETE FROM bar_blocks");
    await client.query(`INSERT INTO bar_blocks (market, timeframe, symbol, block, n, time, open, high, low, close, volume)
      SELECT market, timeframe, symbol, floor(time::float8 / (256 * CASE timeframe
          WHEN 'm1' THEN 60000 WHEN 'm5' THEN 300000 WHEN 'm15' THEN 900000 WHEN 'm30' THEN 1800000
          WHEN 'h1' THEN 3600000 WHEN 'h4' THEN 14400000 WHEN 'd' THEN 86400000 ELSE 604800000 END))::bigint AS block,
        count(*)::int,
        string_agg(float8send(time::float8), ''::bytea ORDER BY time), string_agg(float8send(open), ''::bytea ORDER BY time),
        string_agg(float8send(high), ''::bytea ORDER BY time), string_agg(float8send(low), ''::bytea ORDER BY time),
        string_agg(float8send(close), ''::bytea ORDER BY time), string_agg(float8send(volume), ''::bytea ORDER BY time)
      FROM bars GROUP BY market, timeframe, symbol, block`);
    // float8send is big-endian; blocks are little-endian: swap each 8-byte value.
    const { rows } = await client.query<{ market: string; timeframe: Timeframe; symbol: string; block: number; n: number; time: Buffer; open: Buffer; high: Buffer; low: Buffer; close: Buffer; volume: Buffer }>(
      "SELECT market, timeframe, symbol, block, n, time, open, high, low, close, volume FROM bar_blocks",
    );
    await client.query("DELETE FROM bar_blocks");
    for (const r of rows) {
      const swap = (b: Buffer): Buffer => Buffer.from(b).swap64();
      await client.query("INSERT INTO bar_blocks (market, timeframe, symbol, block, n, time, open, high, low, close, volume) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", [
        r.market, r.timeframe, r.symbol, r.block, r.n, swap(r.time), swap(r.open), swap(r.high), swap(r.low), swap(r.close), swap(r.volume),
      ]);
    }
  }
  await runAsync(upgradeSteps(), async (request) => {
    switch (request.kind) {
      case "v3-series": {
        const { rows } = await client.query("SELECT market, timeframe, symbol, bars, first_time AS \"firstTime\", last_time AS \"lastTime\", derived FROM series");
        return rows;
      }
      case "v3-blocks": {
        const { market, timeframe, symbol } = request.series;
        const { rows } = await client.query({
          text: "SELECT block, time, open, high, low, close, volume FROM bar_blocks WHERE market = $1 AND timeframe = $2 AND symbol = $3 ORDER BY block",
          values: [market, timeframe, symbol],
          rowMode: "array",
        } as pg.QueryConfig);
        return rows;
      }
      case "v4-block": {
        const { market, timeframe, symbol } = request.series;
        await client.query("INSERT INTO bar_blocks_v4 (market, timeframe, symbol, block, n, bars) VALUES ($1, $2, $3, $4, $5, $6)", [
          market, timeframe, symbol, request.block, request.columns.time.length, encodeColumns(request.columns),
        ]);
        return undefined;
      }
      case "v4-series": {
        const r = request.series;
        await client.query(
          "INSERT INTO series_v4 (market, timeframe, symbol, derived, bars, first_time, last_time, sealed_block, tail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
          [r.market, r.timeframe, r.symbol, r.derived, r.bars, r.firstTime, r.lastTime, request.sealedBlock, encodeColumns(request.tail)],
        );
        return undefined;
      }
      case "v4-swap":
        await client.query(`
          DROP TABLE bars;
          DROP TABLE series;
          DROP TABLE bar_blocks;
          ALTER TABLE series_v4 RENAME TO series;
          ALTER INDEX series_v4_pkey RENAME TO series_pkey;
          ALTER TABLE bar_blocks_v4 RENAME TO bar_blocks;
          ALTER INDEX bar_blocks_v4_pkey RENAME TO bar_blocks_pkey;
          CREATE INDEX series_symbol ON series (market, symbol);
          DELETE FROM meta WHERE key = 'blocks_built';
        `);
        return undefined;
      case "v4-derived": {
        const { rows } = await client.query({ text: "SELECT DISTINCT market, symbol FROM series WHERE derived = 1 ORDER BY market, symbol", rowMode: "array" } as pg.QueryConfig);
        return rows;
      }
      default:
        return answer(client, request);
    }
  });
}
