/**
 * Watchlists (decisions §13): an account's saved symbol lists, which a query names with
 * `watchlist = "name"`. Kept by the accounts' database (migration 9, both backends): a list
 * belongs to an account, not to a key, so every key of the account sees the same lists.
 */
import type Database from "better-sqlite3";
import { overSymbols, type CompiledQuery } from "../api.js";
import { fail, type XqlError } from "../errors.js";
import type { PgQueries } from "./postgres.js";

/**
 * The owner of the store's local lists, which the command line keeps (`xql watchlists`) and
 * reads (`watchlist = "name"` in `xql run`, `history`, `watch`). Not an account id `xql keys`
 * makes (those start `acct_`), so no key ever reads them.
 */
export const LOCAL_ACCOUNT = "local";

/** At most this many lists an account keeps. */
export const MAX_WATCHLISTS = 50;

/** One saved list. */
export interface Watchlist {
  /** The list's name: 1 to 40 of `a-z 0-9 _ -`. */
  name: string;
  /** Its symbols, 1 to 1,000, distinct, in the order saved. */
  symbols: string[];
  /** When it was last saved: ms since epoch. */
  updatedAt: number;
}

/** What saving a list did: created it, replaced the list of that name, or refused (the account holds {@link MAX_WATCHLISTS}). */
export type WatchlistPut = "created" | "replaced" | "limit";

/** The accounts' saved lists. */
export interface WatchlistStore {
  /** Saves `symbols` as the account's list `name` (replacing one of that name), unless that makes more than `max` lists. */
  putWatchlist(accountId: string, name: string, symbols: readonly string[], now: number, max?: number): Promise<WatchlistPut>;
  /** The account's lists, by name. */
  listWatchlists(accountId: string): Promise<Watchlist[]>;
  /** The account's list `name`, or undefined. */
  getWatchlist(accountId: string, name: string): Promise<Watchlist | undefined>;
  /** Removes the account's list `name`; false when there was none. */
  deleteWatchlist(accountId: string, name: string): Promise<boolean>;
}

interface Row {
  name: string;
  symbols: string | string[];
  updated_at: number | string;
}

const watchlistOf = (row: Row): Watchlist => ({
  name: row.name,
  symbols: typeof row.symbols === "string" ? (JSON.parse(row.symbols) as string[]) : row.symbols,
  updatedAt: Number(row.updated_at),
});

/** True when `store` keeps watchlists (the built-in stores do). */
export function hasWatchlists(store: unknown): store is WatchlistStore {
  return typeof store === "object" && store !== null && typeof (store as { putWatchlist?: unknown }).putWatchlist === "function";
}

/** {@link WatchlistStore} on the embedded SQLite connection. */
export class SqliteWatchlists implements WatchlistStore {
  private readonly stmt;
  private readonly put;

  constructor(db: Database.Database) {
    this.stmt = {
      count: db.prepare("SELECT count(*) FROM watchlists WHERE account_id = ?").pluck(),
      exists: db.prepare("SELECT 1 FROM watchlists WHERE account_id = ? AND name = ?").pluck(),
      upsert: db.prepare(
        "INSERT INTO watchlists (account_id, name, symbols, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, name) DO UPDATE SET symbols = excluded.symbols, updated_at = excluded.updated_at",
      ),
      list: db.prepare("SELECT name, symbols, updated_at FROM watchlists WHERE account_id = ? ORDER BY name"),
      get: db.prepare("SELECT name, symbols, updated_at FROM watchlists WHERE account_id = ? AND name = ?"),
      remove: db.prepare("DELETE FROM watchlists WHERE account_id = ? AND name = ?"),
    };
    // The count and the write in one transaction: two saves at once never make a 51st list.
    this.put = db.transaction((accountId: string, name: string, symbols: string, now: number, max: number): WatchlistPut => {
      const replacing = this.stmt.exists.get(accountId, name) !== undefined;
      if (!replacing && (this.stmt.count.get(accountId) as number) >= max) return "limit";
      this.stmt.upsert.run(accountId, name, symbols, now);
      return replacing ? "replaced" : "created";
    });
  }

  async putWatchlist(accountId: string, name: string, symbols: readonly string[], now: number, max = MAX_WATCHLISTS): Promise<WatchlistPut> {
    return this.put.immediate(accountId, name, JSON.stringify(symbols), now, max);
  }

  async listWatchlists(accountId: string): Promise<Watchlist[]> {
    return (this.stmt.list.all(accountId) as Row[]).map(watchlistOf);
  }

  async getWatchlist(accountId: string, name: string): Promise<Watchlist | undefined> {
    const row = this.stmt.get.get(accountId, name) as Row | undefined;
    return row ? watchlistOf(row) : undefined;
  }

  async deleteWatchlist(accountId: string, name: string): Promise<boolean> {
    return this.stmt.remove.run(accountId, name).changes > 0;
  }
}

/** {@link WatchlistStore} on PostgreSQL, on the pool the accounts share. */
export class PostgresWatchlists implements WatchlistStore {
  constructor(private readonly db: PgQueries) {}

  async putWatchlist(accountId: string, name: string, symbols: readonly string[], now: number, max = MAX_WATCHLISTS): Promise<WatchlistPut> {
    // One statement: the replace always goes through; a new list only while the account has
    // fewer than `max` (two saves of new lists racing may both see max - 1: the bound is kept
    // to within the saves in flight, which an account's admission caps at 4).
    const { rows } = await this.db.query<{ replaced: boolean }>(
      `INSERT INTO watchlists (account_id, name, symbols, updated_at)
       SELECT $1, $2, $3::jsonb, $4
       WHERE EXISTS (SELECT 1 FROM watchlists WHERE account_id = $1 AND name = $2)
          OR (SELECT count(*) FROM watchlists WHERE account_id = $1) < $5
       ON CONFLICT (account_id, name) DO UPDATE SET symbols = excluded.symbols, updated_at = excluded.updated_at
       RETURNING (xmax <> 0) AS replaced`,
      [accountId, name, JSON.stringify(symbols), now, max],
    );
    if (rows.length === 0) return "limit";
    return rows[0]!.replaced ? "replaced" : "created";
  }

  async listWatchlists(accountId: string): Promise<Watchlist[]> {
    const { rows } = await this.db.query<Row>("SELECT name, symbols, updated_at FROM watchlists WHERE account_id = $1 ORDER BY name COLLATE \"C\"", [accountId]);
    return rows.map(watchlistOf);
  }

  async getWatchlist(accountId: string, name: string): Promise<Watchlist | undefined> {
    const { rows } = await this.db.query<Row>("SELECT name, symbols, updated_at FROM watchlists WHERE account_id = $1 AND name = $2", [accountId, name]);
    return rows[0] ? watchlistOf(rows[0]) : undefined;
  }

  async deleteWatchlist(accountId: string, name: string): Promise<boolean> {
    const { rowCount } = await this.db.query("DELETE FROM watchlists WHERE account_id = $1 AND name = $2", [accountId, name]);
    return (rowCount ?? 0) > 0;
  }
}

/**
 * `compiled` over the account's list when the query names one: the same query screening the
 * list's symbols as saved now, or the plan error `Unknown watchlist 'name'`. A query without a
 * watchlist comes back as it is; without a store every name is unknown. Store failures reject.
 */
export async function resolveWatchlist(compiled: CompiledQuery, accountId: string, watchlists: WatchlistStore | undefined): Promise<CompiledQuery | XqlError> {
  const name = compiled.watchlist;
  if (name === undefined || compiled.symbols !== undefined) return compiled;
  const list = watchlists ? await watchlists.getWatchlist(accountId, name) : undefined;
  if (!list) return fail("unknown-watchlist", { name });
  return overSymbols(compiled, list.symbols);
}
