/**
 * Accounts, keys and (for deployments without Redis) quota counters on PostgreSQL, on the
 * pool the bars share ({@link PostgresStore} composes it and migrates the schema first).
 */
import type pg from "pg";
import type { Account, KeyRecord, KeyStore, NewKey, QuotaStore, QuotaUsage, Reservation, Tier } from "./accounts.js";
import { isTier } from "./accounts.js";
import { ACCOUNTS_HEALTH_SQL, KEY_COLUMNS, checkedScope, keyRecord, usageOf, type KeyRow } from "./records.js";
import { HealthError } from "../store/store.js";
import { XqlDataError } from "../errors.js";

/** How the accounts reach the database: any statement, and a request-path one bounded in time. */
export interface PgQueries {
  /** A statement, after the schema is migrated. */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** A statement on the request path (quota), bounded by the store's request timeout. */
  quick<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** {@link KeyStore} and {@link QuotaStore} on PostgreSQL. */
export class PostgresAccounts implements KeyStore, QuotaStore {
  constructor(private readonly db: PgQueries) {}

  // ---- KeyStore ----

  async createAccount(id: string, tier: Tier, now: number): Promise<Account> {
    if (!isTier(tier)) throw new XqlDataError("account-tier", { tier: String(tier) });
    await this.db.query("INSERT INTO accounts (id, tier, created_at) VALUES ($1, $2, $3)", [id, tier, now]);
    return { id, tier, createdAt: now };
  }

  async findAccount(id: string): Promise<Account | undefined> {
    const { rows } = await this.db.query<{ id: string; tier: Tier; created_at: number }>(
      "SELECT id, tier, created_at FROM accounts WHERE id = $1",
      [id],
    );
    const row = rows[0];
    return row && { id: row.id, tier: row.tier, createdAt: row.created_at };
  }

  async createKey(key: NewKey, now: number): Promise<KeyRecord> {
    const scope = checkedScope(key.scope);
    const { rows } = await this.db.query<{ tier: Tier }>(
      `INSERT INTO api_keys (hash, prefix, account_id, label, scope, created_at)
       SELECT $1, $2, a.id, $4, $6, $5 FROM accounts a WHERE a.id = $3
       RETURNING (SELECT tier FROM accounts WHERE id = $3) AS tier`,
      [key.hash, key.prefix, key.accountId, key.label, now, scope],
    );
    const row = rows[0];
    if (!row) throw new XqlDataError("account-unknown", { account: key.accountId });
    return { hash: key.hash, prefix: key.prefix, accountId: key.accountId, label: key.label, scope, tier: row.tier, createdAt: now, revokedAt: null };
  }

  async findKeyByHash(hash: string): Promise<KeyRecord | undefined> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`,
      [hash],
    );
    return rows[0] && keyRecord(rows[0]);
  }

  async revokeKey(hash: string, now: number): Promise<boolean> {
    const { rowCount } = await this.db.query("UPDATE api_keys SET revoked_at = $1 WHERE hash = $2 AND revoked_at IS NULL", [now, hash]);
    return rowCount === 1;
  }

  async listKeys(): Promise<KeyRecord[]> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at, k.seq`,
    );
    return rows.map(keyRecord);
  }

  // ---- QuotaStore (used when no Redis is configured) ----

  async reserve(accountId: string, day: string, limit: number): Promise<Reservation> {
    if (limit > 0) {
      // One statement: the row lock makes concurrent reservations across replicas queue.
      const { rows } = await this.db.quick<{ used: number }>(
        `INSERT INTO quota_usage (account_id, day, used) VALUES ($1, $2, 1)
         ON CONFLICT (account_id, day) DO UPDATE SET used = quota_usage.used + 1
         WHERE quota_usage.used < $3
         RETURNING used`,
        [accountId, day, limit],
      );
      const used = rows[0]?.used;
      if (used !== undefined) return { admitted: true, ...usageOf(used, limit) };
    }
    return { admitted: false, ...usageOf(await this.usedOn(accountId, day), limit) };
  }

  async release(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    const { rows } = await this.db.quick<{ used: number }>(
      "UPDATE quota_usage SET used = used - 1 WHERE account_id = $1 AND day = $2 AND used > 0 RETURNING used",
      [accountId, day],
    );
    return usageOf(rows[0]?.used ?? (await this.usedOn(accountId, day)), limit);
  }

  async usage(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    return usageOf(await this.usedOn(accountId, day), limit);
  }

  private async usedOn(accountId: string, day: string): Promise<number> {
    const { rows } = await this.db.quick<{ used: number }>("SELECT used FROM quota_usage WHERE account_id = $1 AND day = $2", [accountId, day]);
    return rows[0]?.used ?? 0;
  }

  /** Reads each of the accounts' tables within the request timeout; rejects with a {@link HealthError}. */
  async health(): Promise<void> {
    try {
      await this.db.quick(ACCOUNTS_HEALTH_SQL);
    } catch (error) {
      throw new HealthError("database", "cannot be read", { cause: error });
    }
  }
}
