import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { fetchAnchored, fetchCount, fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { LatestBarsRequest, SymbolBars } from "../../src/store/store.js";
import type { Plan } from "../../src/types.js";
import { barOpen, rampBars } from "../kit/index.js";

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
    // Derived on the FOREX session: 400 h1 bars (Tue Nov 3 22:00 to Fri Nov 20 13:00 UTC) make 13 days
    // (weekends folded into Mondays), each opening at 17:00 New York (22:00 UTC); all opened before the cut.
    const gbpDaily = universe[1]!.bars.d!;
    expect(gbpDaily.time.length).toBe(13);
    expect(gbpDaily.time[12]).toBe(Date.UTC(2026, 10, 19, 22));
  });

  it("uses the default warmup of 300", async () => {
    await fetchUniverse(store, plan);
    expect(store.requests.map((r) => r.count)).toEqual([300, 300]);
    expect(fetchCount(15, 300)).toBe(300);
    expect(fetchCount(301, 300)).toBe(301);
  });

  it("joins sources that list symbols out of the market's order or name one its list lacks, by symbol", async () => {
    const ordered = await fetchUniverse(store, plan, { warmup: 50 });
    // A store whose reads come newest symbol first and whose list missed GBPUSD (written between the reads).
    const shuffled = Object.assign(Object.create(store) as CountingStore, {
      latestBars: async (request: LatestBarsRequest) => (await store.latestBars(request)).reverse(),
      symbols: async () => ["EURUSD"],
    });
    const joined = await fetchUniverse(shuffled, plan, { warmup: 50 });
    expect(joined.map((i) => i.symbol)).toEqual(["EURUSD", "GBPUSD"]);
    for (const [k, instrument] of joined.entries()) {
      for (const timeframe of ["h1", "d"] as const) {
        expect(Array.from(instrument.bars[timeframe]!.close), `${instrument.symbol} ${timeframe}`).toEqual(Array.from(ordered[k]!.bars[timeframe]!.close));
      }
    }
  });
});

describe("fetchAnchored", () => {
  it("reads every bar from the anchor of the window's first bar, reading again when the window spans a gap", async () => {
    const store = new SqliteStore(":memory:");
    try {
      const HOUR_MS = 3_600_000;
      const start = Date.UTC(2024, 0, 1);
      // 200 bars, a gap of 500 hours, then 50 more: a window of 60 bars starts before the gap.
      const times = [...Array.from({ length: 200 }, (_, i) => start + i * HOUR_MS), ...Array.from({ length: 50 }, (_, i) => start + (700 + i) * HOUR_MS)];
      const column = times.map((_, i) => 100 + (i % 7));
      await store.upsertBars([
        { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: { time: times, open: column, high: column, low: column, close: column, volume: column } }] },
      ]);
      const q = compile('market = "CRYPTO"\ntimeframe = h1\nrsi(14) > 0', { warmupCeiling: 20 });
      const read = await fetchAnchored(store, q.plan, { warmup: 20, fetch: q.fetch, anchorSources: q.fetch, bars: 60 });
      const got = Array.from(read[0]!.bars.h1!.time);
      const first = times[times.length - 60]!;
      // The first read (2·20 + 3 + 59 bars) stops short of the anchor; the second holds it.
      expect(got.length).toBeGreaterThan(2 * 20 + 3 + 59);
      expect(got[0]!).toBeLessThanOrEqual(q.anchor("h1", first));
      expect(got).toEqual(times.filter((t) => t >= got[0]!));
      // A run's read needs no second one: (g + 1)·F and a little.
      const run = await fetchAnchored(store, q.plan, { warmup: 20, fetch: q.fetch, anchorSources: q.fetch });
      expect(run[0]!.bars.h1!.time.length).toBe(2 * 20 + 3);
      expect(run[0]!.bars.h1!.time[0]!).toBeLessThanOrEqual(q.anchor("h1", times[times.length - 1]!));
    } finally {
      await store.close();
    }
  });
});
