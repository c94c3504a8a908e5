/**
 * Accounts, keys and quota on their own (src/accounts), without a server: the key format and
 * its hash, issuing keys for new and existing accounts, revocation (seen by another connection
 * to the same file at once), the day's quota reserved to its limit and given back, exactly the
 * limit admitted among concurrent reservations on two connections, and the key fallback that
 * keeps known keys working while the key store is down. Keys and quota on a real SQLite file
 * always and on PostgreSQL when XQL_TEST_DATABASE_URL is set; quota in Redis when
 * XQL_TEST_REDIS_URL is set too.
 */
import { join } from "node:path";
import { existsSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { KeyStore, QuotaStore } from "../../src/accounts/accounts.js";
import { FallbackKeyStore } from "../../src/accounts/key-fallback.js";
import { generateApiKey, hashApiKey, issueApiKey, keyDisplayPrefix, looksLikeApiKey } from "../../src/accounts/keys.js";
import { RedisQuotaStore } from "../../src/accounts/redis.js";
import { quotaFileOf } from "../../src/accounts/sqlite.js";
import { openStore, type Store } from "../../src/open/open.js";
import { DATABASE_URL, REDIS_URL, describeUnless, needsPostgres, tempDir, WITHOUT_SERVICES } from "../kit/index.js";
import { freshPostgresStores, freshPrefix } from "../scale/helpers.js";

const NOW = Date.UTC(2026, 10, 20, 13, 25);
const DAY = "2026-11-20";

describe("API keys", () => {
  it("are xql_ and 32 base62 characters, different every time, stored as their SHA-256 and shown by their first eight characters", () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^xql_[0-9A-Za-z]{32}$/);
      expect(looksLikeApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
    // The SHA-256 of "xql_" + 32 zeros, computed outside the code (sha256sum).
    expect(hashApiKey(`xql_${"0".repeat(32)}`)).toBe("54129c18c6f2b1d134203df160ace3d441ec6a09de571045906b5428befdc21a");
    expect(keyDisplayPrefix("xql_AbCdEfGh")).toBe("xql_AbCd");
    for (const text of ["xql_short", `XQL_${"a".repeat(32)}`, `xql_${"a".repeat(31)}-`, ` xql_${"a".repeat(32)}`]) expect(looksLikeApiKey(text), text).toBe(false);
  });
});

/** The key and quota contract of one backend; `open` gives a fresh store, `again` a second connection to the same one. */
function keysAndQuota(backend: string, open: () => Promise<Store>, again: (store: Store) => Promise<Store>): void {
  describe(`keys and quota on ${backend}`, () => {
    const opened: Store[] = [];
    const fresh = async (): Promise<Store> => {
      const store = await open();
      opened.push(store);
      return store;
    };
    const second = async (store: Store): Promise<Store> => {
      const other = await again(store);
      opened.push(other);
      return other;
    };
    afterEach(async () => {
      for (const store of opened.splice(0).reverse()) await store.close();
    });

    it("issues a key for a new account of a tier, finds it by its hash, and a second key of the same account shares it", async () => {
      const store = await fresh();
      const first = await issueApiKey(store, { tier: "essential", label: "laptop", now: NOW });
      expect(first.newAccount).toBe(true);
      expect(first.record).toEqual({
        hash: hashApiKey(first.key),
        prefix: keyDisplayPrefix(first.key),
        accountId: first.record.accountId,
        tier: "essential",
        label: "laptop",
        scope: "run",
        createdAt: NOW,
        revokedAt: null,
      });
      expect(first.record.accountId).toMatch(/^acct_[0-9A-Za-z]{16}$/);
      expect(await store.findKeyByHash(hashApiKey(first.key))).toEqual(first.record);
      expect(await store.findAccount(first.record.accountId)).toEqual({ id: first.record.accountId, tier: "essential", createdAt: NOW });
      const writer = await issueApiKey(store, { accountId: first.record.accountId, scope: "write", now: NOW + 1 });
      expect(writer.newAccount).toBe(false);
      expect(writer.record).toMatchObject({ accountId: first.record.accountId, tier: "essential", scope: "write" });
      expect((await store.listKeys()).map((k) => k.hash)).toEqual([first.record.hash, writer.record.hash]);
      expect(await store.findKeyByHash(hashApiKey(generateApiKey()))).toBeUndefined();
    });

    it("refuses a key for an unknown account, for an account of another tier, and a new account without a tier", async () => {
      const store = await fresh();
      const { record } = await issueApiKey(store, { tier: "free", now: NOW });
      await expect(issueApiKey(store, { accountId: "acct_nobody", now: NOW })).rejects.toThrow("No account 'acct_nobody'");
      await expect(issueApiKey(store, { accountId: record.accountId, tier: "plus", now: NOW })).rejects.toThrow(`is on the free tier, not plus`);
      await expect(issueApiKey(store, { now: NOW })).rejects.toThrow("A new account needs a tier");
      expect(await store.listKeys()).toHaveLength(1);
    });

    it("revokes a key once, and another connection to the same store sees it revoked at once", async () => {
      const store = await fresh();
      const other = await second(store);
      const { key } = await issueApiKey(store, { tier: "plus", now: NOW });
      const hash = hashApiKey(key);
      // Found (and kept) by the other connection first, then revoked here.
      expect((await other.findKeyByHash(hash))?.revokedAt).toBeNull();
      expect(await store.revokeKey(hash, NOW + 60_000)).toBe(true);
      expect(await store.revokeKey(hash, NOW + 120_000)).toBe(false);
      expect((await store.findKeyByHash(hash))?.revokedAt).toBe(NOW + 60_000);
      expect((await other.findKeyByHash(hash))?.revokedAt).toBe(NOW + 60_000);
    });

    quotaContract(fresh);

    it("admits exactly the limit among 60 concurrent reservations on two connections", async () => {
      const store = await fresh();
      const other = await second(store);
      const { record } = await issueApiKey(store, { tier: "free", now: NOW });
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? store : other).reserve(record.accountId, DAY, 30)));
      expect(results.filter((r) => r.admitted)).toHaveLength(30);
      expect(results.filter((r) => r.admitted).map((r) => r.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(await other.usage(record.accountId, DAY, 30)).toEqual({ used: 30, remaining: 0 });
    });
  });
}

/** The quota contract, for any {@link QuotaStore}; `fresh` gives an empty one (and makes accounts where it must). */
function quotaContract(fresh: () => Promise<QuotaStore & Partial<KeyStore>>): void {
  const account = async (store: QuotaStore & Partial<KeyStore>): Promise<string> =>
    store.createAccount ? (await issueApiKey(store as KeyStore, { tier: "free", now: NOW })).record.accountId : `acct_${freshPrefix().slice(9, 21)}`;

  it("reserves one call at a time up to the day's limit, then refuses without counting; each day and account counts alone", async () => {
    const store = await fresh();
    const a = await account(store);
    const b = await account(store);
    for (let i = 1; i <= 3; i++) expect(await store.reserve(a, DAY, 3)).toEqual({ admitted: true, used: i, remaining: 3 - i });
    expect(await store.reserve(a, DAY, 3)).toEqual({ admitted: false, used: 3, remaining: 0 });
    expect(await store.usage(a, DAY, 3)).toEqual({ used: 3, remaining: 0 });
    expect(await store.usage(a, "2026-11-21", 3)).toEqual({ used: 0, remaining: 3 });
    expect(await store.usage(b, DAY, 3)).toEqual({ used: 0, remaining: 3 });
    // A higher limit (an upgraded tier) admits again the same day.
    expect(await store.reserve(a, DAY, 5)).toEqual({ admitted: true, used: 4, remaining: 1 });
  });

  it("gives a reserved call back (a failed run consumes nothing), never below zero", async () => {
    const store = await fresh();
    const a = await account(store);
    await store.reserve(a, DAY, 30);
    await store.reserve(a, DAY, 30);
    expect(await store.release(a, DAY, 30)).toEqual({ used: 1, remaining: 29 });
    expect(await store.release(a, DAY, 30)).toEqual({ used: 0, remaining: 30 });
    expect(await store.release(a, DAY, 30)).toEqual({ used: 0, remaining: 30 });
    expect(await store.usage(a, DAY, 30)).toEqual({ used: 0, remaining: 30 });
  });
}

const temp = tempDir();
afterAll(temp.cleanup);
let files = 0;
keysAndQuota(
  "SQLite",
  () => openStore(join(temp.dir, `accounts-${files++}.db`)),
  (store) => openStore(store.file),
);

describe("the quota file of a SQLite store", () => {
  it("sits beside the database and keeps the day's count across a reopen", async () => {
    const file = join(temp.dir, "beside.db");
    expect(quotaFileOf(file)).toBe(`${file}-quota`);
    expect(quotaFileOf(":memory:")).toBe(":memory:");
    const store = await openStore(file);
    const { record } = await issueApiKey(store, { tier: "free", now: NOW });
    await store.reserve(record.accountId, DAY, 30);
    await store.close();
    expect(existsSync(`${file}-quota`)).toBe(true);
    const reopened = await openStore(file);
    try {
      expect(await reopened.usage(record.accountId, DAY, 30)).toEqual({ used: 1, remaining: 29 });
    } finally {
      await reopened.close();
    }
  });
});

needsPostgres("keys and quota on PostgreSQL", () => {
  const stores = freshPostgresStores(DATABASE_URL!);
  keysAndQuota("PostgreSQL", stores.open, stores.reopen);
});

describeUnless(WITHOUT_SERVICES, "quota in Redis", () => {
  const opened: RedisQuotaStore[] = [];
  afterAll(() => {
    for (const quota of opened) quota.close();
  });
  quotaContract(async () => {
    const quota = await RedisQuotaStore.open(REDIS_URL!, { prefix: freshPrefix() });
    opened.push(quota);
    return quota;
  });
});

describe("FallbackKeyStore", () => {
  it("follows the key store while it answers (a revocation counts at once), then serves keys it has seen while it is down, and fails the others", async () => {
    const store = await openStore(join(temp.dir, "fallback.db"));
    const known = await issueApiKey(store, { tier: "plus", now: NOW });
    const revoked = await issueApiKey(store, { tier: "plus", now: NOW });
    const unseen = await issueApiKey(store, { tier: "plus", now: NOW });
    const keys = new FallbackKeyStore(store);
    expect(await keys.findKeyByHash(known.record.hash)).toEqual(known.record);
    expect((await keys.findKeyByHash(revoked.record.hash))?.revokedAt).toBeNull();
    await store.revokeKey(revoked.record.hash, NOW + 1);
    expect((await keys.findKeyByHash(revoked.record.hash))?.revokedAt).toBe(NOW + 1);
    // The store stops answering (closed, as a database that went away).
    await store.close();
    await expect(store.findKeyByHash(known.record.hash)).rejects.toThrow();
    expect(await keys.findKeyByHash(known.record.hash)).toEqual(known.record);
    expect((await keys.findKeyByHash(revoked.record.hash))?.revokedAt).toBe(NOW + 1);
    await expect(keys.findKeyByHash(unseen.record.hash)).rejects.toThrow();
  });
});
