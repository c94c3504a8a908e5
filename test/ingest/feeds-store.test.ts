/**
 * Migration 8 on both backends: the store keeps one record per synced series (its feed, price
 * side and last sync), replaced by the next sync, listed whole or per market. PostgreSQL runs
 * when XQL_TEST_DATABASE_URL is set.
 */
import { join } from "node:path";
import { describe, expect, } from "vitest";
import { openStore } from "../../src/open/open.js";
import { tempDir, WITHOUT_POSTGRES, itUnless } from "../kit/index.js";
import { freshDatabase } from "../scale/helpers.js";

const url = process.env.XQL_TEST_DATABASE_URL;

describe("series feeds (migration 8)", () => {
  for (const backend of ["SQLite", "PostgreSQL"] as const) {
    itUnless(backend === "PostgreSQL" ? WITHOUT_POSTGRES : undefined, `records, replaces and lists each series' feed on ${backend}`, async () => {
      const { dir, cleanup } = tempDir();
      let database = join(dir, "feeds.db");
      let drop: (() => Promise<void>) | undefined;
      if (backend === "PostgreSQL") ({ url: database, drop } = await freshDatabase(url!));
      const store = await openStore(database);
      try {
        expect(await store.feeds!()).toEqual([]);
        await store.recordFeeds!([
          { market: "FOREX", timeframe: "h1", symbol: "EURUSD", source: "oanda", price: "bid", syncedAt: 1_000 },
          { market: "FOREX", timeframe: "h1", symbol: "USDJPY", source: "oanda", price: "bid", syncedAt: 1_000 },
          { market: "CRYPTO", timeframe: "m1", symbol: "BTCUSDT", source: "binance", price: "trades", syncedAt: 2_000 },
        ]);
        // The next sync of a series replaces its record: another source, another side, a later time.
        await store.recordFeeds!([{ market: "FOREX", timeframe: "h1", symbol: "EURUSD", source: "dukascopy", price: "mid", syncedAt: 1_795_000_000_000 }]);
        const sorted = (await store.feeds!("FOREX")).sort((a, b) => a.symbol.localeCompare(b.symbol));
        expect(sorted).toEqual([
          { market: "FOREX", timeframe: "h1", symbol: "EURUSD", source: "dukascopy", price: "mid", syncedAt: 1_795_000_000_000 },
          { market: "FOREX", timeframe: "h1", symbol: "USDJPY", source: "oanda", price: "bid", syncedAt: 1_000 },
        ]);
        expect(await store.feeds!()).toHaveLength(3);
      } finally {
        await store.close();
        await drop?.();
        cleanup();
      }
    });
  }
});
