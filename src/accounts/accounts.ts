/**
 * Accounts, their API keys and their daily quota: the contracts the service's authentication
 * and metering depend on. The embedded SQLite store, PostgreSQL and Redis implement them
 * (`./sqlite.ts`, `./postgres.ts`, `./redis.ts`); routes see only these interfaces.
 */

/** Subscription tiers, cheapest first. */
export const TIERS = ["free", "essential", "plus"] as const;
/** A subscription tier, `free`, `essential` or `plus`: it sets an account's daily run quota ({@link TIER_LIMITS}). */
export type Tier = (typeof TIERS)[number];

/** Metered `run` calls allowed per account and UTC day. */
export const TIER_LIMITS: Readonly<Record<Tier, number>> = {
  free: 30,
  essential: 1500,
  plus: 4500,
};

export function isTier(name: string): name is Tier {
  return (TIERS as readonly string[]).includes(name);
}

/**
 * What a key may do. `run` keys validate, explain, run and read; `write` keys do all of that
 * and also push bars (`POST /xql/bars`), so a feed's key is the only one that can change data.
 */
export const SCOPES = ["run", "write"] as const;
/** A key's scope: `run` (the default) or `write`. */
export type Scope = (typeof SCOPES)[number];

export function isScope(name: string): name is Scope {
  return (SCOPES as readonly string[]).includes(name);
}

/** An account: it carries the tier, and all of its keys share one daily quota. */
export interface Account {
  /** The account id; `xql keys create` makes `acct_` followed by 16 base62 characters. */
  id: string;
  /** The account's tier, which sets its daily run quota. */
  tier: Tier;
  /** When the account was created: ms since epoch. */
  createdAt: number;
}

/** An API key as stored: never the key itself, only its hash and a short display prefix. */
export interface KeyRecord {
  /** SHA-256 hex of the whole key. */
  hash: string;
  /** The first characters of the key, for people to tell keys apart (`xql_AbCd`). */
  prefix: string;
  /** The account the key belongs to; runs count against the account's quota. */
  accountId: string;
  /** The tier of the key's account. */
  tier: Tier;
  /** A note to tell keys apart (`xql keys create --label`), or null. */
  label: string | null;
  /** What the key may do: `run`, or `write` (push bars too). */
  scope: Scope;
  /** When the key was created: ms since epoch. */
  createdAt: number;
  /** When the key was revoked (ms since epoch), or null while it is valid. */
  revokedAt: number | null;
}

/** A key to store: its hash, display prefix, account, label and scope (`run` when not given). */
export interface NewKey {
  /** SHA-256 of the key (hex); the key itself is never stored. */
  hash: string;
  /** The key's first characters, shown by `xql keys list` to tell keys apart. */
  prefix: string;
  /** The account the key belongs to. */
  accountId: string;
  /** A note to tell keys apart, or null. */
  label: string | null;
  /** What the key may do: `run` (screens; the default) or `write` (also push bars). */
  scope?: Scope;
}

/** Accounts (which carry the tier) and their API keys. */
export interface KeyStore {
  /** Creates an account of `tier` at `now` (ms since epoch); rejects for an unknown tier or an id already taken. */
  createAccount(id: string, tier: Tier, now: number): Promise<Account>;
  /** The account with this id, or `undefined`. */
  findAccount(id: string): Promise<Account | undefined>;
  /** Adds a key to an existing account; rejects when the account does not exist. */
  createKey(key: NewKey, now: number): Promise<KeyRecord>;
  /** The key with this hash, revoked or not. */
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  /** Marks the key revoked; false when no such key exists or it was already revoked. */
  revokeKey(hash: string, now: number): Promise<boolean>;
  /** Every key, oldest first, without any whole key. */
  listKeys(): Promise<KeyRecord[]>;
}

/** The quota state of one account on one UTC day. */
export interface QuotaUsage {
  /** Metered calls counted for the account on the day. */
  used: number;
  /** Calls left on the day: the limit minus `used`, never below 0. */
  remaining: number;
}

/** The outcome of {@link QuotaStore.reserve}, with the day's usage after it. */
export interface Reservation extends QuotaUsage {
  /** True when the call was counted; false when the day's limit was already used up (a 429). */
  admitted: boolean;
}

/** Daily counters of metered calls per account. */
export interface QuotaStore {
  /**
   * Atomically takes one call from the account's allowance for `day` when fewer than
   * `limit` are used: of N concurrent reservations with k remaining, exactly k are admitted.
   * `reservationId` (unique per call) lets a networked store make the reservation idempotent
   * and reconcile it with a later {@link QuotaStore.release} of the same id even when the
   * reply to the reservation was lost.
   */
  reserve(accountId: string, day: string, limit: number, reservationId?: string): Promise<Reservation>;
  /**
   * Gives one reserved call back (a 500 consumes nothing); never below zero. With the
   * `reservationId` of the reservation, it gives back exactly that one, once, whether or not
   * the reservation itself has reached the store yet.
   */
  release(accountId: string, day: string, limit: number, reservationId?: string): Promise<QuotaUsage>;
  /** The account's usage on `day` (the UTC date, `YYYY-MM-DD`) against `limit`, changing nothing. */
  usage(accountId: string, day: string, limit: number): Promise<QuotaUsage>;
}
