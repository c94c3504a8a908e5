/**
 * Accounts, keys and quota counters of the embedded store, on the SQLite connection the
 * bars share (`SqliteStore` of src/open/ composes it). The quota counters live in a second file
 * attached beside the database (see {@link quotaFileOf}).
 */
import type Database from "better-sqlite3";
import type { Account, KeyRecord, KeyStore, NewKey, QuotaStore, QuotaUsage, Reservation, Tier } from "./accounts.js";
import { isTier } from "./accounts.js";
import { checkedScope } from "./records.js";
import { ACCOUNTS_HEALTH_SQL, KEY_COLUMNS, keyRecord, usageOf, type KeyRow } from "./records.js";
import { type BusyTimeouts, identityOf, withoutWaiting } from "../store/sqlite-database.js";
import { HealthError, StoreBusyError } from "../store/store.js";
import { XqlDataError } from "../errors.js";

/** Most keys kept in memory between commits by other connections. */
const KEY_CACHE_LIMIT = 4096;

/**
 * The file that holds the quota counters beside a database file: `xql.db` → `xql.db-quota`.
 * Quota writes are the only writes of a run, so they live in a file of their own: a run never
 * waits for the lock that `xql data import` or `data seed` holds on the bars for a whole
 * (atomic) import, and the import never waits for runs. In memory, an in-memory database.
 */
export function quotaFileOf(file: string): string {
  return file === ":memory:" || file === "" ? ":memory:" : `${file}-quota`;
}

/** {@link KeyStore} and {@link QuotaStore} on an open SQLite connection (migrated by its owner). */
export class SqliteAccounts implements KeyStore, QuotaStore {
  private readonly stmt;
  /**
   * Keys found by hash, kept while no other connection (another replica, `xql keys revoke` in
   * another process) has committed since: SQLite's `data_version` changes exactly then, and
   * this connection's own revocations clear the map (a new key or account changes no record
   * kept here: only found keys are kept). Every request still asks the database
   * for that number, so a closed or broken store still fails authentication. Only found keys
   * are kept, at most KEY_CACHE_LIMIT, so random keys cannot grow it.
   */
  private readonly keyCache = new Map<string, KeyRecord>();
  private keyCacheVersion = -1;
  private quotaStatements: ReturnType<SqliteAccounts["prepareQuota"]> | undefined;
  /** Device and inode of the quota file when it was attached: `/health` notices it deleted or replaced. */
  private quotaIdentity: string | undefined;

  constructor(
    private readonly db: Database.Database,
    /** The database file (its quota file sits beside it). */
    private readonly file: string,
    private readonly timeouts: BusyTimeouts,
    private readonly readonly: boolean,
  ) {
    this.stmt = {
      commitsByOthers: db.prepare("PRAGMA data_version").pluck(),
      insertAccount: db.prepare("INSERT INTO accounts (id, tier, created_at) VALUES (?, ?, ?)"),
      findAccount: db.prepare("SELECT id, tier, created_at FROM accounts WHERE id = ?"),
      insertKey: db.prepare("INSERT INTO api_keys (hash, prefix, account_id, label, scope, created_at) VALUES (?, ?, ?, ?, ?, ?)"),
      findKey: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`),
      revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL"),
      listKeys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at, k.rowid`),
      health: db.prepare(ACCOUNTS_HEALTH_SQL),
    };
  }

  /**
   * The quota file's statements, attaching it on first use. Only a connection that meters
   * runs attaches it: `BEGIN IMMEDIATE` takes the write lock of every attached file, so an
   * import (which never touches quota) must not hold the quota file for its whole transaction.
   */
  private get q(): ReturnType<SqliteAccounts["prepareQuota"]> {
    return (this.quotaStatements ??= this.prepareQuota());
  }

  /**
   * Attaches the quota file now if it is not yet: a push's sliced write holds the bars file's
   * lock on another connection, and the attach's `BEGIN IMMEDIATE` would wait for it.
   */
  attachQuotaFile(): void {
    if (!this.readonly) void this.q;
  }

  private prepareQuota() {
    attachQuota(this.db, quotaFileOf(this.file), this.readonly);
    this.quotaIdentity = identityOf(quotaFileOf(this.file));
    const db = this.db;
    const ensure = db.prepare("INSERT INTO quota.quota_usage (account_id, day, used) VALUES (?, ?, 0) ON CONFLICT DO NOTHING");
    // One statement each, so it is atomic across connections and processes.
    const reserve = db
      .prepare("UPDATE quota.quota_usage SET used = used + 1 WHERE account_id = ? AND day = ? AND used < ? RETURNING used")
      .pluck();
    const release = db
      .prepare("UPDATE quota.quota_usage SET used = used - 1 WHERE account_id = ? AND day = ? AND used > 0 RETURNING used")
      .pluck();
    return {
      /** The count after a reservation, committed (a failed commit throws), or undefined when the day is used up. */
      reserveCommitted: db.transaction((accountId: string, day: string, limit: number): number | undefined => {
        ensure.run(accountId, day);
        return reserve.get(accountId, day, limit) as number | undefined;
      }),
      /** The count after giving one back, committed, or undefined when there was none to give. */
      releaseCommitted: db.transaction((accountId: string, day: string): number | undefined => release.get(accountId, day) as number | undefined),
      used: db.prepare("SELECT used FROM quota.quota_usage WHERE account_id = ? AND day = ?").pluck(),
      health: db.prepare("SELECT EXISTS (SELECT 1 FROM quota.quota_usage)").pluck(),
      heartbeat: db.prepare("INSERT INTO quota.heartbeat (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at"),
    };
  }

  /**
   * Reads the quota file, attaching it first if need be; throws a {@link HealthError} naming the
   * quota file when it cannot be created, read, or is no longer the file attached (deleted or
   * replaced under a running server: SQLite goes on writing the open file, and the day's
   * counters would be lost at the next start).
   */
  readQuota(): void {
    const file = quotaFileOf(this.file);
    try {
      this.q.health.get();
    } catch (error) {
      // Never attached: the file could not be opened or created (a read-only directory).
      const attached = this.quotaStatements !== undefined;
      throw new HealthError("quota", attached ? "cannot be read" : "the quota file cannot be opened or created", { cause: error });
    }
    if (this.quotaIdentity !== identityOf(file)) throw new HealthError("quota", "the quota file was deleted or replaced");
  }

  /**
   * Reads the accounts' tables and the quota file, and (unless read-only) writes the quota
   * file's heartbeat, committed: the only write a run makes. Rejects with a {@link HealthError}
   * naming what failed.
   */
  async health(): Promise<void> {
    try {
      this.stmt.health.get();
    } catch (error) {
      throw new HealthError("database", "cannot be read", { cause: error });
    }
    this.readQuota();
    if (this.readonly) return;
    try {
      await this.writeHeartbeat(Date.now());
    } catch (error) {
      if (error instanceof StoreBusyError) throw new HealthError("quota", "busy", { cause: error });
      throw new HealthError("quota", "cannot be written", { cause: error });
    }
  }

  /** Writes the quota file's one-row heartbeat, committed: the only write a run makes. */
  async writeHeartbeat(now: number): Promise<void> {
    const q = this.q;
    await withoutWaiting(this.db, this.timeouts, () => q.heartbeat.run(now));
  }

  // ---- KeyStore ----

  async createAccount(id: string, tier: Tier, now: number): Promise<Account> {
    if (!isTier(tier)) throw new XqlDataError("account-tier", { tier: String(tier) });
    this.stmt.insertAccount.run(id, tier, now);
    return { id, tier, createdAt: now };
  }

  async findAccount(id: string): Promise<Account | undefined> {
    const row = this.stmt.findAccount.get(id) as { id: string; tier: Tier; created_at: number } | undefined;
    return row && { id: row.id, tier: row.tier, createdAt: row.created_at };
  }

  async createKey(key: NewKey, now: number): Promise<KeyRecord> {
    const account = await this.findAccount(key.accountId);
    if (!account) throw new XqlDataError("account-unknown", { account: key.accountId });
    const scope = checkedScope(key.scope);
    this.stmt.insertKey.run(key.hash, key.prefix, key.accountId, key.label, scope, now);
    return { hash: key.hash, prefix: key.prefix, accountId: key.accountId, label: key.label, scope, tier: account.tier, createdAt: now, revokedAt: null };
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | undefined> {
    const version = this.stmt.commitsByOthers.get() as number;
    if (version !== this.keyCacheVersion) {
      this.keyCache.clear();
      this.keyCacheVersion = version;
    }
    const cached = this.keyCache.get(hash);
    if (cached) return { ...cached };
    const row = this.stmt.findKey.get(hash) as KeyRow | undefined;
    if (!row) return undefined;
    const record = keyRecord(row);
    if (this.keyCache.size >= KEY_CACHE_LIMIT) this.keyCache.clear();
    this.keyCache.set(hash, record);
    return { ...record };
  }

  async revokeKey(hash: string, now: number): Promise<boolean> {
    this.keyCache.clear();
    return this.stmt.revokeKey.run(now, hash).changes === 1;
  }

  async listKeys(): Promise<KeyRecord[]> {
    return (this.stmt.listKeys.all() as KeyRow[]).map(keyRecord);
  }

  // ---- QuotaStore ----

  async reserve(accountId: string, day: string, limit: number): Promise<Reservation> {
    const q = this.q;
    // In an explicit transaction, so its COMMIT is a statement of its own that throws when the
    // commit fails (SQLITE_FULL on a full disk): in autocommit, `UPDATE … RETURNING` hands back
    // the new row on its first step while the commit that follows fails unseen, and a
    // reservation that was never written would be taken as granted. Deferred, so only the
    // quota file is locked (an import's lock on the bars file is never waited for).
    const used = await withoutWaiting(this.db, this.timeouts, () => q.reserveCommitted(accountId, day, limit));
    if (used !== undefined) return { admitted: true, ...usageOf(used, limit) };
    const current = (q.used.get(accountId, day) as number | undefined) ?? 0;
    return { admitted: false, ...usageOf(current, limit) };
  }

  async release(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    const q = this.q;
    const released = await withoutWaiting(this.db, this.timeouts, () => q.releaseCommitted(accountId, day));
    const used = released ?? ((q.used.get(accountId, day) as number | undefined) ?? 0);
    return usageOf(used, limit);
  }

  async usage(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    const used = (this.q.used.get(accountId, day) as number | undefined) ?? 0;
    return usageOf(used, limit);
  }
}

/**
 * Attaches the quota file as schema `quota` (WAL, like the main file) and creates its tables.
 * Counters kept in the main file by an older version are carried over once, when the quota
 * file is new.
 */
function attachQuota(db: Database.Database, file: string, readonly: boolean): void {
  if (readonly) {
    // Attached files open read-only like the main one; without a quota file, no run was counted.
    try {
      db.prepare("ATTACH DATABASE ? AS quota").run(file);
      db.prepare("SELECT 1 FROM quota.quota_usage LIMIT 1").get();
      return;
    } catch {
      if (db.prepare("SELECT count(*) FROM pragma_database_list WHERE name = 'quota'").pluck().get()) db.exec("DETACH DATABASE quota");
      db.prepare("ATTACH DATABASE ? AS quota").run(":memory:");
      db.exec("CREATE TABLE quota.quota_usage (account_id TEXT, day TEXT, used INTEGER, PRIMARY KEY (account_id, day)); CREATE TABLE quota.heartbeat (id INTEGER PRIMARY KEY, at INTEGER)");
      return;
    }
  }
  db.prepare("ATTACH DATABASE ? AS quota").run(file);
  try {
    prepareQuotaFile(db, file);
  } catch (error) {
    // Not usable (a read-only directory where it cannot be created): detached, so the next
    // call tries again from the start instead of finding `quota` already attached.
    db.exec("DETACH DATABASE quota");
    throw error;
  }
}

/** WAL and the quota tables in the attached quota file. */
function prepareQuotaFile(db: Database.Database, file: string): void {
  if (file !== ":memory:") db.pragma("quota.journal_mode = WAL");
  db.pragma("quota.synchronous = NORMAL");
  db.transaction(() => {
    const fresh = (db.prepare("SELECT count(*) FROM quota.sqlite_master WHERE name = 'quota_usage'").pluck().get() as number) === 0;
    db.exec(`
      CREATE TABLE IF NOT EXISTS quota.quota_usage (
        account_id TEXT    NOT NULL,
        day        TEXT    NOT NULL,
        used       INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
        PRIMARY KEY (account_id, day)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS quota.heartbeat (id INTEGER PRIMARY KEY, at INTEGER NOT NULL);
    `);
    if (fresh) db.exec("INSERT OR IGNORE INTO quota.quota_usage SELECT account_id, day, used FROM main.quota_usage");
  }).immediate();
}
