/**
 * Migration 8 on both backends: the store keeps one record per synced series (its feed, price
 * side and last sync), replaced by the next sync, listed whole or per market. PostgreSQL runs
 * when XQL_TEST_DATABASE_URL is set.
 */
import { join } from "node:path";
import { describe, expect, } from "vitest";
import { openStore, type Store } from "../../src/open/open.js";
import { tempDir, WITHOUT_POSTGRES, itUnless } from "../kit/index.js";
import { freshDatabase } from "../scale/helpers.js";

const url = process.env.XQL_TEST_DATABASE_URL;

/** Runs `body` on a fresh store of `backend` (a SQLite file, or a PostgreSQL database of its own), closed and dropped after. */
async function onStore(backend: "SQLite" | "PostgreSQL", body: (store: Store) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir();
  let database = join(dir, "feeds.db");
  let drop: (() => Promise<void>) | undefined;
  if (backend === "PostgreSQL") ({ url: database, drop } = await freshDatabase(url!));
  const store = await openStore(database);
  try {
    await body(store);
  } finally {
    await store.close();
    await drop?.();
    cleanup();
  }
}

describe("series feeds (migration 8)", () => {
  for (const backend of ["SQLite", "PostgreSQL"] as const) {
    itUnless(backend === "PostgreSQL" ? WITHOUT_POSTGRES : undefined, `records, replaces and lists each series' feed on ${backend}`, () =>
      onStore(backend, async (store) => {
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
      }),
    );
    itUnless(backend === "PostgreSQL" ? WITHOUT_POSTGRES : undefined, `forgets a series' feed when its bars are deleted, not while it keeps some, on ${backend}`, () =>
      onStore(backend, async (store) => {
        const T0 = Date.UTC(2026, 0, 5);
        const bars = (n: number) => {
          const time = Array.from({ length: n }, (_, i) => T0 + i * 3_600_000);
          const price = time.map((_, i) => 1.1 + i / 1000);
          return { time, open: price, high: price, low: price, close: price, volume: time.map(() => 1) };
        };
        await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: ["EURUSD", "USDJPY"].map((symbol) => ({ symbol, bars: bars(6) })) }]);
        await store.recordFeeds([
          { market: "FOREX", timeframe: "h1", symbol: "EURUSD", source: "oanda", price: "bid", syncedAt: 1_000 },
          { market: "FOREX", timeframe: "h1", symbol: "USDJPY", source: "oanda", price: "bid", syncedAt: 1_000 },
        ]);
        const symbols = async () => (await store.feeds("FOREX")).map((f) => f.symbol).sort();
        // USDJPY keeps its older bars: still the feed's series.
        expect(await store.deleteBars({ symbol: "USDJPY", market: "FOREX", from: T0 + 3 * 3_600_000 })).toBe(3);
        expect(await symbols()).toEqual(["EURUSD", "USDJPY"]);
        // EURUSD has no bars left: its record goes, and a sync may start it again from another side.
        expect(await store.deleteBars({ symbol: "EURUSD", market: "FOREX" })).toBe(6);
        expect(await symbols()).toEqual(["USDJPY"]);
        expect(await store.deleteBars({ symbol: "USDJPY" })).toBe(3);
        expect(await symbols()).toEqual([]);
      }),
    );
  }
});
