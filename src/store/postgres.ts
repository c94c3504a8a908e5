/**
 * The scale-out bar and key store: PostgreSQL through a `pg` connection pool. Several
 * `xql serve` replicas share one database; each implements the same contracts as the
 * embedded SQLite store ({@link BarStore}, {@link KeyStore}, and {@link QuotaStore} for
 * deployments without Redis), so routes never know which one they talk to.
 *
 * - Schema in numbered migrations, applied once under an advisory lock, so replicas
 *   starting together never race.
 * - "The latest N bars of every symbol" is one query per plan source: a LATERAL
 *   `ORDER BY time DESC LIMIT n` per symbol of the series catalog, each symbol's columns
 *   aggregated into binary float8/int8 arrays (`array_send`), so 10,000 symbols are 10,000
 *   rows rather than millions.
 * - Writes go in one transaction with `unnest` of whole columns, and bump `data_version`
 *   in that same transaction.
 */
import pg from "pg";
import type { Bars, RawSeries, Timeframe } from "../types.js";
import { RAW_SERIES, TIMEFRAMES, TIMEFRAME_MS, isTimeframe } from "../types.js";
import type { Account, KeyRecord, KeyStore, QuotaStore, QuotaUsage, Reservation, Tier } from "../accounts/accounts.js";
import type { BarBatch, BarStore, DataListener, DeleteBarsRequest, LatestBarsRequest, ProgressListener, SeriesInfo, SymbolBars, WriteResult } from "./store.js";
import { ChangeFeed } from "./watch.js";
import { PostgresAccounts } from "../accounts/postgres.js";
import { PostgresAlerts } from "../alerts/postgres.js";
import type { AlertStore } from "../alerts/alerts.js";
import { ALERTS_MIGRATION, ALERTS_POSTGRES_SQL } from "../alerts/schema.js";
import { redactUrl } from "../redact.js";
import { alignmentCut } from "../alignment.js";
import { HEALTH_SQL, HealthError } from "./store.js";
import { FULL_SPAN, periodStartSql, planDerivation, recordSpan, type Touched } from "./derive.js";
import { BLOCK_BARS, assembleLatest, blockOf, blockStart, orderedSeries, packBlocks, uniqueBars, type PackedBlock, type ReadBlock } from "./blocks.js";

/** One series span whose blocks a write rebuilds; `packed`: blocks already packed from the batch (a series written whole). */
interface BlockSpan {
  market: string;
  timeframe: Timeframe;
  symbol: string;
  from: number;
  to: number;
  packed?: PackedBlock[];
}

/** One step of the schema. Versions only grow; a released migration is never edited. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "bars, series catalog, meta, accounts, keys, quota",
    sql: `
      CREATE TABLE bars (
        market    text             NOT NULL,
        timeframe text             NOT NULL,
        symbol    text             NOT NULL,
        time      bigint           NOT NULL,
        open      double precision NOT NULL,
        high      double precision NOT NULL,
        low       double precision NOT NULL,
        close     double precision NOT NULL,
        volume    double precision NOT NULL,
        PRIMARY KEY (market, timeframe, symbol, time)
      );

      -- What each (market, timeframe, symbol) holds, kept in step with bars by every write.
      CREATE TABLE series (
        market     text   NOT NULL,
        timeframe  text   NOT NULL,
        symbol     text   NOT NULL,
        bars       bigint NOT NULL,
        first_time bigint NOT NULL,
        last_time  bigint NOT NULL,
        PRIMARY KEY (market, timeframe, symbol)
      );

      -- data_version changes in the same transaction as every write of bars.
      CREATE TABLE meta (
        key   text   PRIMARY KEY,
        value bigint NOT NULL
      );
      INSERT INTO meta (key, value) VALUES ('data_version', 0);

      CREATE TABLE accounts (
        id         text   PRIMARY KEY,
        tier       text   NOT NULL CHECK (tier IN ('free', 'essential', 'plus')),
        created_at bigint NOT NULL
      );

      -- Only the SHA-256 of a key is kept; prefix is for people to tell keys apart.
      CREATE TABLE api_keys (
        seq        bigserial UNIQUE,
        hash       text   PRIMARY KEY,
        prefix     text   NOT NULL,
        account_id text   NOT NULL REFERENCES accounts (id),
        label      text,
        created_at bigint NOT NULL,
        revoked_at bigint
      );
      CREATE INDEX api_keys_account ON api_keys (account_id);

      -- Metered calls per account and UTC day, for deployments without Redis.
      CREATE TABLE quota_usage (
        account_id text    NOT NULL,
        day        text    NOT NULL,
        used       integer NOT NULL DEFAULT 0 CHECK (used >= 0),
        PRIMARY KEY (account_id, day)
      );
    `,
  },
  {
    version: 2,
    name: "derived timeframes: series.derived marks bars built from the finest imported timeframe",
    sql: `ALTER TABLE series ADD COLUMN derived integer NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    name: "packed bars: time-aligned blocks of float64 columns for cold reads",
    sql: `
      CREATE TABLE bar_blocks (
        market    text    NOT NULL,
        timeframe text    NOT NULL,
        symbol    text    NOT NULL,
        block     bigint  NOT NULL,
        n         integer NOT NULL,
        time      bytea   NOT NULL,
        open      bytea   NOT NULL,
        high      bytea   NOT NULL,
        low       bytea   NOT NULL,
        close     bytea   NOT NULL,
        volume    bytea   NOT NULL,
        PRIMARY KEY (market, timeframe, symbol, block)
      );
      ALTER TABLE bar_blocks ALTER COLUMN time SET STORAGE EXTERNAL, ALTER COLUMN open SET STORAGE EXTERNAL,
        ALTER COLUMN high SET STORAGE EXTERNAL, ALTER COLUMN low SET STORAGE EXTERNAL,
        ALTER COLUMN close SET STORAGE EXTERNAL, ALTER COLUMN volume SET STORAGE EXTERNAL;
      INSERT INTO meta (key, value) VALUES ('blocks_built', 0);
    `,
  },
  { ...ALERTS_MIGRATION, sql: ALERTS_POSTGRES_SQL },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** Advisory lock key held while migrating ("xql" in ASCII, then 1). */
const MIGRATION_LOCK = 0x78716c01;

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
  /** Rows per INSERT when writing bars. Default 20000. */
  writeChunkRows?: number;
  /**
   * Client-side limit on each quota statement and the health probe, ms: they are on every
   * run's path, so a stalled server costs a run at most this long before it answers 500. Default 1000.
   */
  requestTimeoutMillis?: number;
  /** How often {@link PostgresStore.watch} reads the data version beside LISTEN, in ms. Default 1000. */
  watchIntervalMs?: number;
  /** Told about errors of idle pooled connections (a restart of the server, say). */
  onError?: (error: Error) => void;
}

/** The NOTIFY channel every write of bars announces its data version on. */
const DATA_CHANNEL = "xql_data";

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
 * {@link BarStore}, {@link KeyStore} and {@link QuotaStore} on PostgreSQL. The schema is
 * migrated on first use (or by {@link PostgresStore.open}); a database that does not answer
 * makes calls reject after the connection timeout, and they work again once it is back.
 */
export class PostgresStore implements BarStore, KeyStore, QuotaStore {
  /** Where the store lives, without a password: for messages. */
  readonly file: string;
  /** The backend, for callers that hold a store opened by URL. */
  readonly backend = "postgres" as const;
  readonly pool: pg.Pool;
  private readonly writeChunkRows: number;
  private readonly requestTimeoutMillis: number;
  private migrated: Promise<void> | undefined;
  private closed = false;
  /** Watchers of writes: this object's at once, other replicas' by LISTEN/NOTIFY (and the version, read on a timer). */
  private readonly changes: ChangeFeed;
  private listener: pg.Client | undefined;
  private readonly url: string;
  /** Accounts, keys and quota counters, on this pool. */
  readonly accounts = new PostgresAccounts({ query: (text, values) => this.query(text, values), quick: (text, values) => this.quick(text, values) });
  /** Alerts, their claims and their outbox, on this pool. */
  readonly alerts: AlertStore = new PostgresAlerts({
    query: (text, values) => this.query(text, values),
    transaction: async (work) => {
      await this.ready();
      return this.transaction(work);
    },
  });

  constructor(url: string, options: PostgresStoreOptions = {}) {
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
    this.writeChunkRows = options.writeChunkRows ?? 20_000;
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
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const store = new PostgresStore(url, options);
    try {
      await store.ready();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
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
    await this.transaction(async (client) => {
      // Replicas starting together queue here; the first applies, the others find it done.
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text    NOT NULL,
        applied_at bigint  NOT NULL
      )`);
      const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations");
      const current = rows[0]?.v ?? 0;
      if (current > PG_SCHEMA_VERSION) {
        throw new Error(
          `The database schema is at version ${current}, newer than this xql understands (${PG_SCHEMA_VERSION}); upgrade xql`,
        );
      }
      for (const migration of PG_MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
          migration.version,
          migration.name,
          Date.now(),
        ]);
      }
      const built = await client.query<{ value: number }>("SELECT value FROM meta WHERE key = 'blocks_built'");
      if (Number(built.rows[0]?.value ?? 1) === 0) {
        // Bars written before migration 3 get their blocks once, inside the migration's transaction.
        const { rows } = await client.query<{ market: string; timeframe: Timeframe; symbol: string }>("SELECT market, timeframe, symbol FROM series");
        await this.rebuildBlocks(client, rows.map((r) => ({ ...r, from: -FULL_SPAN, to: FULL_SPAN })));
        await client.query("UPDATE meta SET value = 1 WHERE key = 'blocks_built'");
      }
    });
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

  private async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    await this.ready();
    return this.pool.query<R>(text, values);
  }

  /** A statement on the request path (quota): bounded by `requestTimeoutMillis`. */
  private async quick<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    await this.ready();
    return this.pool.query<R>({ text, values, query_timeout: this.requestTimeoutMillis } as pg.QueryConfig);
  }

  /** A query whose rows come back as arrays (block reads: no per-row object). */
  private async arrayQuery(text: string, values: unknown[]): Promise<unknown[][]> {
    await this.ready();
    const result = await this.pool.query({ text, values, rowMode: "array" });
    return result.rows as unknown[][];
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
    const { market, timeframe, baseTimeframe, count } = request;
    const series = orderedSeries(request.series);
    const span = BLOCK_BARS * TIMEFRAME_MS[timeframe];
    // Blocks per symbol read in the one query: enough when blocks are at least half full;
    // a symbol with sparser blocks is read again on its own, without the bound.
    const k = Math.ceil((2 * (count + 1)) / BLOCK_BARS) + 1;
    const base = timeframe === baseTimeframe;
    // Column names come from RAW_SERIES only, never from a request string.
    const list = ["b.n", "b.time", ...series.map((name) => `b.${name}`)].join(", ");
    // Only the symbols asked for: their series rows alone, so no other block is read.
    const only = request.symbols === undefined ? "" : `AND s.symbol = ANY($${base ? 5 : 7}::text[])`;
    const text = base
      ? `SELECT s.symbol, s.first_time, NULL::bigint AS cut, b.block, ${list} FROM series s
         JOIN bar_blocks b ON b.market = s.market AND b.timeframe = s.timeframe AND b.symbol = s.symbol
           AND b.block > s.last_time / $3 - $4
         WHERE s.market = $1 AND s.timeframe = $2 ${only}
         ORDER BY s.symbol COLLATE "C", b.block DESC`
      : // Cut at the close of the symbol's latest base bar (src/alignment.ts): blocks back from the
        // one holding the newest bar the cut lets through, LEAST(newest, cut - 1) — never from the
        // cut itself, which may lie far past the data (a daily base bar over m1 bars).
        `SELECT s.symbol, s.first_time, base.last_time AS base_open, b.block, ${list} FROM series s
         JOIN series base ON base.market = s.market AND base.timeframe = $6 AND base.symbol = s.symbol
         JOIN bar_blocks b ON b.market = s.market AND b.timeframe = s.timeframe AND b.symbol = s.symbol
           AND b.block <= LEAST(s.last_time, base.last_time + $5 - 1) / $3
           AND b.block > LEAST(s.last_time, base.last_time + $5 - 1) / $3 - $4
         WHERE s.market = $1 AND s.timeframe = $2 ${only}
         ORDER BY s.symbol COLLATE "C", b.block DESC`;
    const values: unknown[] = base ? [market, timeframe, span, k] : [market, timeframe, span, k, TIMEFRAME_MS[baseTimeframe], baseTimeframe];
    if (request.symbols !== undefined) values.push([...request.symbols]);
    const rows = await this.arrayQuery(text, values);
    const out: SymbolBars[] = [];
    let i = 0;
    while (i < rows.length) {
      const symbol = rows[i]![0] as string;
      const firstTime = Number(rows[i]![1]);
      const cut = base ? Infinity : alignmentCut(Number(rows[i]![2]), TIMEFRAME_MS[baseTimeframe]);
      const blocks: ReadBlock[] = [];
      for (; i < rows.length && rows[i]![0] === symbol; i++) blocks.push(pgBlock(rows[i]!, 4));
      const want = base ? count : count + 1;
      let bars = assembleLatest(blocks, series, want, cut, nanColumn);
      const oldestRead = Number(rows[i - 1]![3]);
      if (bars.time.length < want && oldestRead > blockOf(firstTime, timeframe)) {
        const again = await this.arrayQuery(
          `SELECT ${list} FROM bar_blocks b WHERE b.market = $1 AND b.timeframe = $2 AND b.symbol = $3 ORDER BY b.block DESC`,
          [market, timeframe, symbol],
        );
        bars = assembleLatest(again.map((r) => pgBlock(r, 0)), series, want, cut, nanColumn);
      }
      out.push({ symbol, bars });
    }
    return out;
  }

  /**
   * Rewrites the blocks of the given series spans (inside a write's transaction), set-based per
   * (market, timeframe): spans packed from the batch are inserted as they are, the others are
   * packed from their rows.
   */
  private async rebuildBlocks(client: pg.PoolClient, spans: readonly BlockSpan[]): Promise<void> {
    const groups = new Map<string, { market: string; timeframe: Timeframe; spans: BlockSpan[] }>();
    for (const span of spans) {
      const key = `${span.market}\u0000${span.timeframe}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { market: span.market, timeframe: span.timeframe, spans: [] }));
      g.spans.push(span);
    }
    for (const { market, timeframe, spans: group } of groups.values()) {
      const bound = (span: BlockSpan): [number, number] => {
        const full = span.from <= -FULL_SPAN || span.to >= FULL_SPAN;
        return full ? [-FULL_SPAN, FULL_SPAN] : [blockOf(span.from, timeframe), blockOf(span.to, timeframe)];
      };
      const symbols = group.map((g) => g.symbol);
      const b0 = group.map((g) => bound(g)[0]);
      const b1 = group.map((g) => bound(g)[1]);
      await client.query(
        `DELETE FROM bar_blocks b USING unnest($3::text[], $4::bigint[], $5::bigint[]) AS r(symbol, b0, b1)
         WHERE b.market = $1 AND b.timeframe = $2 AND b.symbol = r.symbol AND b.block >= r.b0 AND b.block <= r.b1`,
        [market, timeframe, symbols, b0, b1],
      );
      // Multi-row VALUES with one parameter per block column: node-pg sends a Buffer as a
      // binary parameter, where a bytea[] would go as hex text twice the size.
      let pending: unknown[] = [];
      let rowsPending = 0;
      const flush = async (): Promise<void> => {
        if (rowsPending === 0) return;
        const tuples: string[] = [];
        for (let r = 0; r < rowsPending; r++) {
          const p = 3 + r * 9;
          tuples.push(`($1, $2, $${p}, $${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6}, $${p + 7}, $${p + 8})`);
        }
        await client.query(
          `INSERT INTO bar_blocks (market, timeframe, symbol, block, n, time, open, high, low, close, volume) VALUES ${tuples.join(", ")}`,
          [market, timeframe, ...pending],
        );
        pending = [];
        rowsPending = 0;
      };
      const add = async (symbol: string, blocks: readonly PackedBlock[]): Promise<void> => {
        for (const packed of blocks) {
          const c = packed.columns;
          pending.push(symbol, packed.block, packed.n, c.time, c.open, c.high, c.low, c.close, c.volume);
          if (++rowsPending >= 500) await flush();
        }
      };
      const fromRows = group.filter((g) => !g.packed);
      for (const g of group) if (g.packed) await add(g.symbol, g.packed);
      if (fromRows.length > 0) {
        const lo = fromRows.map((g) => (bound(g)[0] <= -FULL_SPAN ? -FULL_SPAN : blockStart(bound(g)[0], timeframe)));
        const hi = fromRows.map((g) => (bound(g)[1] >= FULL_SPAN ? FULL_SPAN : blockStart(bound(g)[1] + 1, timeframe)));
        const { rows } = await client.query({
          text: `SELECT b.symbol, array_send(array_agg(b.time ORDER BY b.time)) AS time,
                   array_send(array_agg(b.open ORDER BY b.time)) AS open, array_send(array_agg(b.high ORDER BY b.time)) AS high,
                   array_send(array_agg(b.low ORDER BY b.time)) AS low, array_send(array_agg(b.close ORDER BY b.time)) AS close,
                   array_send(array_agg(b.volume ORDER BY b.time)) AS volume
                 FROM bars b JOIN unnest($3::text[], $4::bigint[], $5::bigint[]) AS r(symbol, lo, hi)
                   ON b.symbol = r.symbol AND b.time >= r.lo AND b.time < r.hi
                 WHERE b.market = $1 AND b.timeframe = $2
                 GROUP BY b.symbol`,
          values: [market, timeframe, fromRows.map((g) => g.symbol), lo, hi],
        });
        for (const row of rows as Record<string, unknown>[]) {
          await add(row.symbol as string, packBlocks(decodeColumns(row, ["open", "high", "low", "close", "volume"]), timeframe));
        }
      }
      await flush();
    }
  }

  async upsertBars(batches: readonly BarBatch[], onProgress?: ProgressListener): Promise<WriteResult> {
    await this.ready();
    let total = 0;
    for (const batch of batches) for (const { bars } of batch.symbols) total += bars.time.length;
    const chunkRows = this.writeChunkRows;
    const result = await this.transaction(async (client): Promise<WriteResult> => {
      let done = 0;
      let replaced = 0;
      let reported = 0;
      const touched = await this.touchedSymbols(client, batches);
      const wholeSeries = new Map<string, Bars>();
      for (const { market, timeframe, symbols, replace } of batches) {
        if (!isTimeframe(timeframe)) throw new Error(`Unknown timeframe '${String(timeframe)}'`);
        const names = symbols.map((s) => s.symbol);
        // An import at a timeframe served derived so far replaces the derived bars whole.
        const wasDerived: string[] = [];
        for (const { symbol, bars } of symbols) {
          const state = touched.get(`${market}\u0000${symbol}`)!;
          const derivedBefore = !replace && state.before.get(timeframe)?.derived === true && !state.written.has(timeframe);
          if (derivedBefore) wasDerived.push(symbol);
          // A series written whole by this batch (new, replaced, or imported over derived bars):
          // its blocks are packed from the batch, without reading the rows back.
          const whole = (replace === true || derivedBefore || !state.before.has(timeframe)) && !state.written.has(timeframe);
          recordSpan(state.written, timeframe, bars.time, replace === true || derivedBefore);
          const key = `${market}\u0000${timeframe}\u0000${symbol}`;
          if (whole) wholeSeries.set(key, uniqueBars(bars));
          else wholeSeries.delete(key);
        }
        const cleared = replace ? names : wasDerived;
        if (cleared.length > 0) {
          await client.query("DELETE FROM bars WHERE market = $1 AND timeframe = $2 AND symbol = ANY($3::text[])", [
            market,
            timeframe,
            cleared,
          ]);
          await client.query("DELETE FROM series WHERE market = $1 AND timeframe = $2 AND symbol = ANY($3::text[])", [
            market,
            timeframe,
            cleared,
          ]);
        }
        const chunk = new Chunk();
        const flush = async (): Promise<void> => {
          if (chunk.length === 0) return;
          // xmax is set on a row an ON CONFLICT updated: those bars replaced stored ones.
          const { rows } = await client.query<{ replaced: number }>(
            `WITH w AS (
               INSERT INTO bars (market, timeframe, symbol, time, open, high, low, close, volume)
               SELECT $1, $2, u.* FROM unnest($3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[],
                 $8::float8[], $9::float8[]) AS u
               ON CONFLICT (market, timeframe, symbol, time) DO UPDATE SET
                 open = excluded.open, high = excluded.high, low = excluded.low,
                 close = excluded.close, volume = excluded.volume
               RETURNING (xmax <> 0) AS replaced)
             SELECT count(*) FILTER (WHERE replaced)::int AS replaced FROM w`,
            [market, timeframe, chunk.symbol, chunk.time, chunk.open, chunk.high, chunk.low, chunk.close, chunk.volume],
          );
          replaced += rows[0]?.replaced ?? 0;
          done += chunk.length;
          chunk.clear();
          if (onProgress && done - reported >= 10_000) {
            reported = done;
            onProgress(done, total);
          }
        };
        for (const { symbol, bars } of symbols) {
          for (const i of lastOfEachTime(bars.time)) {
            chunk.push(symbol, bars, i);
            if (chunk.length >= chunkRows) await flush();
          }
        }
        await flush();
        if (names.length > 0) {
          await client.query(
            `INSERT INTO series (market, timeframe, symbol, bars, first_time, last_time, derived)
             SELECT market, timeframe, symbol, count(*), min(time), max(time), 0 FROM bars
             WHERE market = $1 AND timeframe = $2 AND symbol = ANY($3::text[])
             GROUP BY market, timeframe, symbol
             ON CONFLICT (market, timeframe, symbol) DO UPDATE SET
               bars = excluded.bars, first_time = excluded.first_time, last_time = excluded.last_time, derived = 0`,
            [market, timeframe, names],
          );
        }
      }
      const spans: BlockSpan[] = await this.derive(client, touched);
      // Blocks follow the rows: every span written or derived is packed again.
      for (const { market, symbol, written } of touched.values()) {
        for (const [timeframe, span] of written) {
          const whole = wholeSeries.get(`${market}\u0000${timeframe}\u0000${symbol}`);
          spans.push({
            market,
            timeframe,
            symbol,
            from: whole || span.full ? -FULL_SPAN : span.from,
            to: whole || span.full ? FULL_SPAN : span.to,
            packed: whole ? packBlocks(whole, timeframe) : undefined,
          });
        }
      }
      await this.rebuildBlocks(client, spans);
      const version = await this.bumpVersion(client);
      return { written: done, replaced, symbols: touched.size, version };
    });
    this.changes.publish(result.version, "local");
    onProgress?.(result.written, total);
    return result;
  }

  /** Advances the data version inside a write's transaction and tells listeners of every replica on commit. */
  private async bumpVersion(client: pg.PoolClient): Promise<number> {
    const { rows } = await client.query<{ value: number }>("UPDATE meta SET value = value + 1 WHERE key = 'data_version' RETURNING value");
    const version = Number(rows[0]!.value);
    // NOTIFY is delivered at commit, and not at all on a rollback.
    await client.query("SELECT pg_notify($1, $2)", [DATA_CHANNEL, String(version)]);
    return version;
  }

  /** What each symbol a write names held before it (one read per market). */
  private async touchedSymbols(client: pg.PoolClient, batches: readonly BarBatch[]): Promise<Map<string, Touched>> {
    const byMarket = new Map<string, Set<string>>();
    for (const { market, symbols } of batches) {
      let names = byMarket.get(market);
      if (!names) byMarket.set(market, (names = new Set()));
      for (const { symbol } of symbols) names.add(symbol);
    }
    const touched = new Map<string, Touched>();
    for (const [market, names] of byMarket) {
      for (const symbol of names) touched.set(`${market}\u0000${symbol}`, { market, symbol, before: new Map(), written: new Map() });
      const { rows } = await client.query<{ symbol: string; timeframe: Timeframe; derived: number }>(
        "SELECT symbol, timeframe, derived FROM series WHERE market = $1 AND symbol = ANY($2::text[])",
        [market, [...names]],
      );
      for (const r of rows) {
        (touched.get(`${market}\u0000${r.symbol}`)!.before as Map<Timeframe, { derived: boolean }>).set(r.timeframe, { derived: r.derived === 1 });
      }
    }
    return touched;
  }

  /** Rebuilds the derived periods a write touched, set-based: one DELETE and one INSERT … SELECT per (market, fine, coarse). */
  private async derive(client: pg.PoolClient, touched: ReadonlyMap<string, Touched>): Promise<BlockSpan[]> {
    const spans: BlockSpan[] = [];
    const groups = new Map<string, { market: string; fine: Timeframe; coarse: Timeframe; symbols: string[]; from: number[]; to: number[] }>();
    for (const { market, symbol, before, written } of touched.values()) {
      const after = new Map(before);
      for (const tf of written.keys()) after.set(tf, { derived: false });
      for (const job of planDerivation(before, after, written)) {
        const key = `${market}\u0000${job.fine}\u0000${job.coarse}`;
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { market, fine: job.fine, coarse: job.coarse, symbols: [], from: [], to: [] }));
        group.symbols.push(symbol);
        group.from.push(job.full ? -FULL_SPAN : job.from);
        group.to.push(job.full ? FULL_SPAN : job.to);
        spans.push({ market, timeframe: job.coarse, symbol, from: job.full ? -FULL_SPAN : job.from, to: job.full ? FULL_SPAN : job.to - 1 });
      }
    }
    for (const { market, fine, coarse, symbols, from, to } of groups.values()) {
      const spans = "unnest($3::text[], $4::bigint[], $5::bigint[]) AS r(symbol, lo, hi)";
      await client.query(
        `DELETE FROM bars b USING ${spans}
         WHERE b.market = $1 AND b.timeframe = $2 AND b.symbol = r.symbol AND b.time >= r.lo AND b.time < r.hi`,
        [market, coarse, symbols, from, to],
      );
      await client.query(
        `INSERT INTO bars (market, timeframe, symbol, time, open, high, low, close, volume)
         SELECT $1, $2, b.symbol, ${periodStartSql("b.time", coarse)} AS period,
           (array_agg(b.open ORDER BY b.time))[1], max(b.high), min(b.low),
           (array_agg(b.close ORDER BY b.time DESC))[1], sum(b.volume)
         FROM bars b JOIN ${spans} ON b.symbol = r.symbol AND b.time >= r.lo AND b.time < r.hi
         WHERE b.market = $1 AND b.timeframe = $6
         GROUP BY b.symbol, period`,
        [market, coarse, symbols, from, to, fine],
      );
      await client.query("DELETE FROM series WHERE market = $1 AND timeframe = $2 AND symbol = ANY($3::text[])", [market, coarse, symbols]);
      await client.query(
        `INSERT INTO series (market, timeframe, symbol, bars, first_time, last_time, derived)
         SELECT market, timeframe, symbol, count(*), min(time), max(time), 1 FROM bars
         WHERE market = $1 AND timeframe = $2 AND symbol = ANY($3::text[])
         GROUP BY market, timeframe, symbol`,
        [market, coarse, symbols],
      );
    }
    return spans;
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

  /**
   * Deletes a symbol's bars (every market and timeframe unless narrowed; from `from` on when
   * given) with the series catalog and the data version, in one transaction.
   */
  /**
   * Removes bars of one symbol's imported timeframes (all, or those opening at or after
   * `from`); its derived timeframes are derived again whole from the finest imported one left
   * (or removed when none is left), and the blocks of every series touched repacked.
   */
  async deleteBars(request: DeleteBarsRequest): Promise<number> {
    await this.ready();
    const { symbol } = request;
    let version: number | undefined;
    const deleted = await this.transaction(async (client) => {
      const { rows: held } = await client.query<{ market: string; timeframe: Timeframe; derived: number }>(
        "SELECT market, timeframe, derived FROM series WHERE symbol = $1 ORDER BY market, timeframe",
        [symbol],
      );
      let deleted = 0;
      const markets = new Set<string>();
      const spans: BlockSpan[] = [];
      for (const { market, timeframe, derived } of held) {
        if (request.market !== undefined && request.market !== market) continue;
        if (request.timeframe !== undefined && request.timeframe !== timeframe) continue;
        // Derived bars follow the bars they are derived from; they are rebuilt below.
        if (derived === 1) continue;
        const { rowCount } = await client.query("DELETE FROM bars WHERE market = $1 AND timeframe = $2 AND symbol = $3 AND time >= $4", [
          market,
          timeframe,
          symbol,
          request.from ?? -FULL_SPAN,
        ]);
        if (!rowCount) continue;
        deleted += rowCount;
        markets.add(market);
        await client.query("DELETE FROM series WHERE market = $1 AND timeframe = $2 AND symbol = $3", [market, timeframe, symbol]);
        await client.query(
          `INSERT INTO series (market, timeframe, symbol, bars, first_time, last_time, derived)
           SELECT market, timeframe, symbol, count(*), min(time), max(time), 0 FROM bars
           WHERE market = $1 AND timeframe = $2 AND symbol = $3 GROUP BY market, timeframe, symbol`,
          [market, timeframe, symbol],
        );
        spans.push({ market, timeframe, symbol, from: -FULL_SPAN, to: FULL_SPAN });
      }
      const touched = new Map<string, Touched>();
      for (const market of markets) {
        const { rows } = await client.query<{ timeframe: Timeframe; derived: number }>(
          "SELECT timeframe, derived FROM series WHERE market = $1 AND symbol = $2",
          [market, symbol],
        );
        const imported = new Map<Timeframe, { derived: boolean }>();
        for (const { timeframe, derived } of rows) {
          if (derived === 1) {
            await client.query("DELETE FROM bars WHERE market = $1 AND timeframe = $2 AND symbol = $3", [market, timeframe, symbol]);
            await client.query("DELETE FROM series WHERE market = $1 AND timeframe = $2 AND symbol = $3", [market, timeframe, symbol]);
            spans.push({ market, timeframe, symbol, from: -FULL_SPAN, to: FULL_SPAN });
          } else imported.set(timeframe, { derived: false });
        }
        // The finest imported timeframe left, written "whole": every coarser one not imported is derived again.
        const finest = TIMEFRAMES.find((tf) => imported.has(tf));
        if (finest !== undefined) {
          touched.set(`${market}\u0000${symbol}`, {
            market,
            symbol,
            before: imported,
            written: new Map([[finest, { from: -FULL_SPAN, to: FULL_SPAN, full: true }]]),
          });
        }
      }
      spans.push(...(await this.derive(client, touched)));
      // Every series touched is repacked whole, once (two spans of one series would pack it twice).
      const once = new Map(spans.map((span) => [`${span.market}\u0000${span.timeframe}\u0000${span.symbol}`, { ...span, from: -FULL_SPAN, to: FULL_SPAN }]));
      await this.rebuildBlocks(client, [...once.values()]);
      if (deleted > 0) version = await this.bumpVersion(client);
      return deleted;
    });
    if (version !== undefined) this.changes.publish(version, "local");
    return deleted;
  }

  // ---- KeyStore and QuotaStore: the accounts on the same pool ----

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

interface SeriesRow {
  market: string;
  timeframe: Timeframe;
  symbol: string;
  bars: number;
  first_time: number;
  last_time: number;
  derived: number;
}

/** Column arrays for one INSERT … SELECT unnest(…). */
class Chunk {
  symbol: string[] = [];
  time: number[] = [];
  open: number[] = [];
  high: number[] = [];
  low: number[] = [];
  close: number[] = [];
  volume: number[] = [];

  get length(): number {
    return this.time.length;
  }

  push(symbol: string, bars: Bars, i: number): void {
    this.symbol.push(symbol);
    this.time.push(bars.time[i]!);
    this.open.push(bars.open[i]!);
    this.high.push(bars.high[i]!);
    this.low.push(bars.low[i]!);
    this.close.push(bars.close[i]!);
    this.volume.push(bars.volume[i]!);
  }

  clear(): void {
    this.symbol = [];
    this.time = [];
    this.open = [];
    this.high = [];
    this.low = [];
    this.close = [];
    this.volume = [];
  }
}

/**
 * Indices of the bars to write: every bar, except that of bars sharing a time only the
 * last counts (as when SQLite applies them one after another); one INSERT may not touch a
 * row twice.
 */
function lastOfEachTime(time: ArrayLike<number>): number[] {
  const n = time.length;
  let increasing = true;
  for (let i = 1; i < n && increasing; i++) if (!(time[i]! > time[i - 1]!)) increasing = false;
  if (increasing) return Array.from({ length: n }, (_, i) => i);
  const last = new Map<number, number>();
  for (let i = 0; i < n; i++) last.set(time[i]!, i);
  return [...last.values()].sort((a, b) => a - b);
}

/**
 * A binary one-dimensional array (`array_send`) of int8 or float8 to a Float64Array:
 * a 12-byte header (ndim, has-nulls, element type), then per dimension its length and lower
 * bound, then per element a 4-byte length and 8 big-endian bytes.
 */
function decodeArray(buffer: Buffer | null | undefined): Float64Array {
  if (!buffer || buffer.length < 12) return new Float64Array(0);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const ndim = view.getInt32(0);
  if (ndim === 0) return new Float64Array(0);
  const oid = view.getInt32(8);
  const n = view.getInt32(12);
  const out = new Float64Array(n);
  let at = 12 + ndim * 8;
  if (oid === 20) {
    for (let i = 0; i < n; i++) {
      at += 4;
      out[i] = Number(view.getBigInt64(at));
      at += 8;
    }
  } else {
    for (let i = 0; i < n; i++) {
      at += 4;
      out[i] = view.getFloat64(at);
      at += 8;
    }
  }
  return out;
}

/** A block row `[..., n, time, ...series]` from `offset` (bytea comes back as Buffer). */
function pgBlock(row: unknown[], offset: number): ReadBlock {
  return { n: Number(row[offset]), time: row[offset + 1] as Uint8Array, columns: row.slice(offset + 2) as Uint8Array[] };
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

function decodeColumns(row: Record<string, unknown>, series: readonly RawSeries[]): Bars {
  const time = decodeArray(row.time as Buffer | null);
  const n = time.length;
  const filled: Partial<Record<RawSeries, Float64Array>> = {};
  for (const name of series) filled[name] = n === 0 ? new Float64Array(0) : decodeArray(row[name] as Buffer | null);
  const missing = (): Float64Array => new Float64Array(n).fill(Number.NaN);
  return {
    time,
    open: filled.open ?? missing(),
    high: filled.high ?? missing(),
    low: filled.low ?? missing(),
    close: filled.close ?? missing(),
    volume: filled.volume ?? missing(),
  };
}
