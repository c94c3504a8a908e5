/** One key as both SQL stores read it (accounts joined for the tier), and its {@link KeyRecord}. */
import type { KeyRecord, Scope, Tier } from "./accounts.js";
import { isScope } from "./accounts.js";
import { XqlDataError } from "../errors.js";

/** A row of `api_keys` joined with its account's tier, as both SQL backends select it. */
export interface KeyRow {
  hash: string;
  prefix: string;
  account_id: string;
  tier: Tier;
  label: string | null;
  scope: Scope;
  created_at: number;
  revoked_at: number | null;
}

/** The columns of a {@link KeyRow}, for both backends' SELECTs (`k` = api_keys, `a` = accounts). */
export const KEY_COLUMNS = "k.hash, k.prefix, k.account_id, a.tier, k.label, k.scope, k.created_at, k.revoked_at";

export function keyRecord(row: KeyRow): KeyRecord {
  return {
    hash: row.hash,
    prefix: row.prefix,
    accountId: row.account_id,
    tier: row.tier,
    label: row.label,
    scope: row.scope,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** The usage reported for `used` calls against `limit`. */
export function usageOf(used: number, limit: number): { used: number; remaining: number } {
  return { used, remaining: Math.max(0, limit - used) };
}

/** The scope a new key is stored with: `run` unless `write` is asked for; anything else is refused. */
export function checkedScope(scope: string | undefined): Scope {
  if (scope === undefined) return "run";
  if (!isScope(scope)) throw new XqlDataError("key-scope", { scope });
  return scope;
}

/** The accounts' health probe: one cheap read of each of their tables (valid SQLite and PostgreSQL). */
export const ACCOUNTS_HEALTH_SQL =
  "SELECT EXISTS (SELECT 1 FROM accounts) AS accounts, EXISTS (SELECT 1 FROM api_keys) AS api_keys, EXISTS (SELECT 1 FROM quota_usage) AS quota_usage";
