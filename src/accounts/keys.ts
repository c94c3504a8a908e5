/**
 * API keys: `xql_` + 32 random base62 characters. Only the SHA-256 of a key is stored;
 * the key itself is shown once, when it is created.
 */
import { createHash, randomBytes } from "node:crypto";
import type { KeyRecord, KeyStore, Scope, Tier } from "./accounts.js";
import { XqlDataError } from "../errors.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const KEY_PREFIX = "xql_";
const KEY_BODY_LENGTH = 32;
/** Characters of a key kept for display (`xql_` and four more). */
const DISPLAY_LENGTH = KEY_PREFIX.length + 4;

/** `length` uniformly random base62 characters from the system CSPRNG. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting bytes at or above it keeps every character equally likely.
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new API key. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBase62(KEY_BODY_LENGTH);
}

/** A new account id, `acct_` + 16 base62 characters. */
export function generateAccountId(): string {
  return `acct_${randomBase62(16)}`;
}

/** True when the text has the shape of an API key (not whether one exists). */
export function looksLikeApiKey(text: string): boolean {
  return /^xql_[0-9A-Za-z]{32}$/.test(text);
}

/** SHA-256 hex of the key: what the store keeps and looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** The part of a key that may be shown: `xql_AbCd`. */
export function keyDisplayPrefix(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}

/** A key just issued: the whole key (shown once) and what the store keeps. */
export interface IssuedKey {
  key: string;
  record: KeyRecord;
  /** True when the call made a new account for the key. */
  newAccount: boolean;
}

/**
 * Issues a key: for a new account of `tier`, or (with `accountId`) for an existing account,
 * sharing its quota. A tier given with an account must be the account's tier. The key may
 * run screens (`scope` `run`, the default) or also push bars (`write`).
 */
export async function issueApiKey(
  store: KeyStore,
  options: { tier?: Tier; accountId?: string; label?: string | null; scope?: Scope; now: number },
): Promise<IssuedKey> {
  let accountId = options.accountId;
  let newAccount = false;
  if (accountId !== undefined) {
    const account = await store.findAccount(accountId);
    if (!account) throw new XqlDataError("account-unknown", { account: accountId });
    if (options.tier !== undefined && options.tier !== account.tier) {
      throw new XqlDataError("account-tier", { tier: options.tier, account: accountId, current: account.tier });
    }
  } else {
    if (options.tier === undefined) throw new XqlDataError("account-needs-tier", {});
    accountId = generateAccountId();
    await store.createAccount(accountId, options.tier, options.now);
    newAccount = true;
  }
  const key = generateApiKey();
  const record = await store.createKey(
    { hash: hashApiKey(key), prefix: keyDisplayPrefix(key), accountId, label: options.label ?? null, scope: options.scope ?? "run" },
    options.now,
  );
  return { key, record, newAccount };
}
