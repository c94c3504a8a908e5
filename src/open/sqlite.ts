/**
 * The embedded store as `openStore` composes it: the bars, the accounts (keys and quota
 * counters), the watchlists and the alerts in one SQLite file, on one connection, so
 * `xql serve` needs nothing but a file. Each room keeps its own code and tables; this is the
 * one place that knows all of them.
 */
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import { ACCOUNTS_ROOM, WATCHLISTS_ROOM } from "../accounts/rooms.js";
import { SqliteAccounts } from "../accounts/sqlite.js";
import { SqliteWatchlists, type WatchlistStore } from "../accounts/watchlists.js";
import type { AlertStore } from "../alerts/alerts.js";
import { ALERTS_ROOM } from "../alerts/rooms.js";
import { SqliteAlerts } from "../alerts/sqlite.js";
import type { SqliteRoom } from "../db/sqlite.js";
import { SQLITE_BAR_ROOMS, SqliteBarStore, type SqliteStoreOptions } from "../store/sqlite.js";
import { KEY_STORE, QUOTA_STORE, WATCHLIST_STORE, delegate } from "./compose.js";

/** Every room of the embedded file, in the order a new file gets them. */
export const SQLITE_ROOMS: readonly SqliteRoom[] = [...SQLITE_BAR_ROOMS, ACCOUNTS_ROOM, WATCHLISTS_ROOM, ALERTS_ROOM];

// The constructor gives the instance the accounts' and watchlists' methods (`delegate`); the
// interface tells the compiler so.
export interface SqliteStore extends KeyStore, QuotaStore, WatchlistStore {}

/**
 * Bars (`SqliteBarStore`), keys and quota counters, watchlists and alerts on one SQLite
 * file. Calls run synchronously inside better-sqlite3 and resolve at once; a closed or
 * broken database rejects.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every method the interface above names
export class SqliteStore extends SqliteBarStore {
  /** Accounts, keys and quota counters, on this connection. */
  readonly accounts: SqliteAccounts;
  private watchlistStore: SqliteWatchlists | undefined;
  private alertStore: SqliteAlerts | undefined;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    super(file, options, SQLITE_ROOMS);
    this.accounts = new SqliteAccounts(this.db, file, this.timeouts, this.readonly);
    // The watchlists are prepared on first use: a read-only file of an older schema may lack them.
    const watchlists = (): SqliteWatchlists => (this.watchlistStore ??= new SqliteWatchlists(this.db));
    Object.assign(this, delegate<KeyStore>(() => this.accounts, KEY_STORE), delegate<QuotaStore>(() => this.accounts, QUOTA_STORE), delegate<WatchlistStore>(watchlists, WATCHLIST_STORE));
  }

  /** Alerts, their claims and their outbox, on this connection (prepared on first use). */
  get alerts(): AlertStore {
    return (this.alertStore ??= new SqliteAlerts(this.db, this.timeouts));
  }

  /** The bars' health, then the accounts' (their tables, the quota file and its heartbeat). */
  override async health(): Promise<void> {
    await super.health();
    await this.accounts.health();
  }

  /** Runs meter on this connection during a sliced write: their quota file must be attached before its lock is held. */
  protected override beforeWriteLock(): void {
    this.accounts.attachQuotaFile();
  }
}
