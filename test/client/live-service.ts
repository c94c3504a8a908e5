/**
 * A real XQL service for the client and bridge tests: `createServer` on temporary SQLite
 * files seeded with a small synthetic CRYPTO and FOREX universe, listening on loopback. Keys
 * are issued through the key store, as `xql keys create` does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { syntheticUniverse } from "../../src/index.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import { createServer, SqliteStore, TIER_LIMITS, utcDay } from "../../src/server/index.js";
import type { BarBatch, Tier } from "../../src/server/index.js";
import type { Timeframe } from "../../src/types.js";

export interface LiveService {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** Accounts, keys and quota. */
  store: SqliteStore;
  /** Closes the bar store's database, so runs fail after auth and quota with a 500. */
  breakBarStore(): void;
  /** A new key on a new account of the tier. */
  createKey(tier: Tier): Promise<string>;
  /** Uses up the account's runs for today, as that many successful runs would. */
  exhaustQuota(key: string): Promise<void>;
  close(): Promise<void>;
}

const TIMEFRAMES: Timeframe[] = ["h1", "h4", "d", "w"];

export async function startLiveService(): Promise<LiveService> {
  const dir = mkdtempSync(join(tmpdir(), "xql-live-"));
  // Bars live in their own file, so the bar database can fail while keys and quota still answer.
  const store = new SqliteStore(join(dir, "keys.db"));
  const barStore = new SqliteStore(join(dir, "bars.db"));
  const batches: BarBatch[] = [];
  for (const market of ["CRYPTO", "FOREX"]) {
    const universe = syntheticUniverse({ market, symbols: 8, timeframes: TIMEFRAMES, bars: 420, seed: 11 });
    for (const timeframe of TIMEFRAMES) {
      batches.push({
        market,
        timeframe,
        symbols: universe.map((instrument) => ({ symbol: instrument.symbol, bars: instrument.bars[timeframe]! })),
      });
    }
  }
  await barStore.upsertBars(batches);

  const app = createServer({ bars: barStore, keys: store, quota: store, cache: false });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("The service did not report a TCP address");
  const accounts = new Map<string, { accountId: string; tier: Tier }>();

  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    store,
    async createKey(tier) {
      const { key, record } = await issueApiKey(store, { tier, label: "test", now: Date.now() });
      accounts.set(key, { accountId: record.accountId, tier });
      return key;
    },
    async exhaustQuota(key) {
      const account = accounts.get(key);
      if (!account) throw new Error("exhaustQuota: unknown key");
      const limit = TIER_LIMITS[account.tier];
      const day = utcDay(Date.now());
      for (let i = 0; i < limit; i++) await store.reserve(account.accountId, day, limit);
    },
    breakBarStore() {
      barStore.close();
    },
    async close() {
      await app.close();
      barStore.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
