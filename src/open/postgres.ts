/**
 * The scale-out store as `openStore` composes it: the bars, the accounts (keys, and quota
 * counters for deployments without Redis), the watchlists, the alerts and the replicas'
 * screen leases in one PostgreSQL database, on one pool. Each room keeps its own code and
 * tables; this is the one place that knows all of them.
 */
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import { PostgresAccounts } from "../accounts/postgres.js";
import { ACCOUNTS_ROOM, WATCHLISTS_ROOM } from "../accounts/rooms.js";
import { PostgresWatchlists, type WatchlistStore } from "../accounts/watchlists.js";
import type { AlertStore } from "../alerts/alerts.js";
import { PostgresAlerts } from "../alerts/postgres.js";
import { ALERTS_ROOM, LEASES_ROOM } from "../alerts/rooms.js";
import type { PostgresRoom } from "../db/postgres.js";
import { POSTGRES_BAR_ROOMS, PostgresBarStore, type PostgresStoreOptions, opened } from "../store/postgres.js";
import { KEY_STORE, QUOTA_STORE, WATCHLIST_STORE, delegate } from "./compose.js";

/** Every room of the database, in the order a new database gets them. */
export const POSTGRES_ROOMS: readonly PostgresRoom[] = [...POSTGRES_BAR_ROOMS, ACCOUNTS_ROOM, WATCHLISTS_ROOM, ALERTS_ROOM, LEASES_ROOM];

// The constructor gives the instance the accounts' and watchlists' methods (`delegate`); the
// interface tells the compiler so.
export interface PostgresStore extends KeyStore, QuotaStore, WatchlistStore {}

/**
 * Bars ({@link PostgresBarStore}), keys and quota counters, watchlists, alerts and screen
 * leases on one PostgreSQL database; every room waits for the schema to be current.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every method the interface above names
export class PostgresStore extends PostgresBarStore {
  /** Accounts, keys and quota counters, on this pool. */
  readonly accounts: PostgresAccounts;
  /** Alerts, their claims and their outbox, on this pool. */
  readonly alerts: AlertStore;

  constructor(url: string, options: PostgresStoreOptions = {}) {
    super(url, options, POSTGRES_ROOMS);
    const queries = { query: this.query.bind(this), quick: this.quick.bind(this) };
    this.accounts = new PostgresAccounts(queries);
    const watchlists = new PostgresWatchlists(queries);
    this.alerts = new PostgresAlerts({
      query: queries.query,
      transaction: async (work) => {
        await this.ready();
        return this.transaction(work);
      },
    });
    Object.assign(this, delegate<KeyStore>(() => this.accounts, KEY_STORE), delegate<QuotaStore>(() => this.accounts, QUOTA_STORE), delegate<WatchlistStore>(() => watchlists, WATCHLIST_STORE));
  }

  /** Connects and migrates every room; rejects when the database cannot be reached. */
  static override async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    return opened(new PostgresStore(url, options));
  }

  /** The bars' health, then the accounts' tables. */
  override async health(): Promise<void> {
    await super.health();
    await this.accounts.health();
  }
}
