import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BarCache, fetchCount, fetchUniverse } from "../../src/store/fetch.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import type { LatestBarsRequest, SymbolBars } from "../../src/store/store.js";
import type { Plan } from "../../src/types.js";
import { barOpen, rampBars } from "./helpers.js";

const NOW = Date.UTC(2026, 10, 20, 13, 25);

/** A real SQLite store that also records what it was asked. */
class CountingStore extends SqliteStore {
  readonly requests: LatestBarsRequest[] = [];
  versionCalls = 0;
  override async latestBars(request: LatestBarsRequest): Promise<SymbolBars[]> {
    this.requests.push(request);
    return super.latestBars(request);
  }
  override async dataVersion(): Promise<number> {
    this.versionCalls++;
    return super.dataVersion();
  }
}

const plan: Plan = {
  market: "FOREX",
  sources: [
    { timeframe: "h1", series: ["close", "volume"], minLookback: 15 },
    { timeframe: "d", series: ["close"], minLookback: 200 },
  ],
};

describe("fetchUniverse", () => {
  let store: CountingStore;

  beforeEach(async () => {
    store = new CountingStore(":memory:");
    await store.upsertBars([
      {
        market: "FOREX",
        timeframe: "h1",
        symbols: [
          { symbol: "EURUSD", bars: rampBars("h1", 400, barOpen("h1", NOW)) },
          { symbol: "GBPUSD", bars: rampBars("h1", 400, barOpen("h1", NOW)) },
        ],
      },
      // GBPUSD has no daily bars imported: it is served daily bars derived from its h1 bars.
      { market: "FOREX", timeframe: "d", symbols: [{ symbol: "EURUSD", bars: rampBars("d", 400, barOpen("d", NOW)) }] },
      { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "BTCUSDT", bars: rampBars("h1", 400, barOpen("h1", NOW)) }] },
    ]);
  });
  afterEach(() => store.close());

  it("asks for max(minLookback, warmup) bars of only the named series per source", async () => {
    const universe = await fetchUniverse(store, plan, { warmup: 50 });
    expect(store.requests).toEqual([
      { market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close", "volume"], count: 50 },
      { market: "FOREX", timeframe: "d", baseTimeframe: "h1", series: ["close"], count: 200 },
    ]);
    expect(universe.map((i) => i.symbol)).toEqual(["EURUSD", "GBPUSD"]);
    const eur = universe[0]!.bars;
    expect(eur.h1!.time.length).toBe(50);
    expect(eur.d!.time.length).toBe(201);
    // Derived: 400 h1 bars span 18 UTC days (Nov 3 22:00 to Nov 20 13:00); all of them opened before the cut.
    const gbpDaily = universe[1]!.bars.d!;
    expect(gbpDaily.time.length).toBe(18);
    expect(gbpDaily.time[17]).toBe(barOpen("d", NOW));
  });

  it("uses the default warmup of 300", async () => {
    await fetchUniverse(store, plan);
    expect(store.requests.map((r) => r.count)).toEqual([300, 300]);
    expect(fetchCount(15, 300)).toBe(300);
    expect(fetchCount(301, 300)).toBe(301);
  });

  it("serves repeated runs from the cache while the data version holds, yet reads the version every time", async () => {
    const cache = new BarCache();
    const first = await fetchUniverse(store, plan, { cache });
    const second = await fetchUniverse(store, plan, { cache });
    expect(store.requests).toHaveLength(2);
    expect(store.versionCalls).toBe(2);
    expect(second[0]!.bars.h1).toBe(first[0]!.bars.h1);

    await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 1, barOpen("h1", NOW), 9999) }] }]);
    const third = await fetchUniverse(store, plan, { cache });
    expect(store.requests).toHaveLength(4);
    expect(Array.from(third[0]!.bars.h1!.close).at(-1)).toBe(9999);
  });

  it("rejects when the store is gone, even with everything cached", async () => {
    const cache = new BarCache();
    await fetchUniverse(store, plan, { cache });
    await store.close();
    await expect(fetchUniverse(store, plan, { cache })).rejects.toThrow();
  });

  it("keeps reads within its budget in bytes: a read larger than the budget is not kept", async () => {
    const roomy = new BarCache();
    await fetchUniverse(store, plan, { cache: roomy });
    expect(roomy.size).toBe(2);
    const read = roomy.bytes;
    // Two symbols × 300 bars × 8 bytes of time and the named series (three on h1, two on d), at least.
    expect(read).toBeGreaterThan(2 * 300 * 8 * (3 + 2));
    const tight = new BarCache(read / 2 + 100);
    await fetchUniverse(store, plan, { cache: tight });
    expect(tight.size).toBe(1);
    expect(tight.bytes).toBeLessThanOrEqual(tight.maxBytes);
    const none = new BarCache(1000);
    await fetchUniverse(store, plan, { cache: none });
    expect(none.size).toBe(0);
  });
});
