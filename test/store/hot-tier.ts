/**
 * The hot tier against cold reads (issue 19), for any backend: random interleavings of writes
 * through this store object (appends of a bar to many series, a bar in progress rewritten,
 * overlaps) and through another connection (appends, replaces, deletes), and runs of screens over
 * several timeframes; every run over the tier gets exactly the bars, and so the results, that a
 * run reading the store gives at that moment. A run holding its lease keeps its bars while
 * writes land; appends refresh only the series they touch.
 */
import { expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { HotTier } from "../../src/store/hot-tier.js";
import type { Store } from "../../src/open/open.js";
import type { Bars, Instrument, Plan } from "../../src/types.js";
import { TIMEFRAME_MS } from "../../src/types.js";
import { prng } from "../kit/index.js";

const H = TIMEFRAME_MS.h1;
const START = Date.UTC(2026, 0, 5);

const QUERIES = [
  'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, d::close, h4::rsi(14)]\nclose > 0',
  'market = "CRYPTO"\ntimeframe = h4\ncolumns = [close, h1::close, w::high]\nclose > 0',
  'market = "FOREX"\ntimeframe = h1\ncolumns = [close, d::sma(5), vwap]\nclose > 0',
  'market = "CRYPTO"\ntimeframe = d\ncolumns = [close, sma(close, 3)]\nclose > 0',
  'market = "CRYPTO"\ntimeframe = h1\ncolumns = [open, h4::low]\nopen > 0',
];

function bars(times: number[], random: () => number): Bars {
  const close = times.map(() => 100 + Math.round(random() * 1000) / 10);
  return {
    time: Float64Array.from(times),
    open: Float64Array.from(close, (c) => c - 0.5),
    high: Float64Array.from(close, (c) => c + 1),
    low: Float64Array.from(close, (c) => c - 1),
    close: Float64Array.from(close),
    volume: Float64Array.from(times, () => Math.floor(random() * 100)),
  };
}

/** The columns a plan reads of every timeframe of a universe, as plain arrays (a cold read leaves the others NaN). */
function plain(universe: Instrument[], plan: Plan): unknown {
  return universe.map((i) => ({
    symbol: i.symbol,
    bars: Object.fromEntries(
      plan.sources.map(({ timeframe, series }) => {
        const b = i.bars[timeframe];
        return [timeframe, b && { time: Array.from(b.time), ...Object.fromEntries(series.map((name) => [name, Array.from(b[name])])) }];
      }),
    ),
  }));
}

export function hotTierContract(open: () => Promise<Store>, another: (store: Store) => Promise<Store>): void {
  for (const seed of [1, 2]) {
    it(`gives every run exactly the bars of a cold read, over random writes here and through another connection (seed ${seed})`, async () => {
      const store = await open();
      const other = await another(store);
      const tier = new HotTier(store);
      tier.watch();
      const random = prng(seed);
      const symbols = Array.from({ length: 12 }, (_, i) => `S${String(i).padStart(2, "0")}`);
      const last = new Map<string, number>();
      try {
        for (const market of ["CRYPTO", "FOREX"]) {
          await store.upsertBars([
            {
              market,
              timeframe: "h1",
              symbols: symbols.map((symbol) => {
                const n = 200 + Math.floor(random() * 300);
                const times = Array.from({ length: n }, (_, k) => START + k * H);
                last.set(`${market}/${symbol}`, times.at(-1)!);
                return { symbol, bars: bars(times, random) };
              }),
            },
          ]);
          // Series the tier reads unevenly: fewer bars than a block, and one bar every 11 hours
          // (blocks a tenth full: the read finds too few bars in its span and reads them all).
          const few = Array.from({ length: 20 }, (_, k) => START + (400 + k) * H);
          const sparse = Array.from({ length: 420 }, (_, k) => START - 4_000 * H + k * 11 * H);
          last.set(`${market}/FEW`, few.at(-1)!);
          last.set(`${market}/SPARSE`, sparse.at(-1)!);
          await store.upsertBars([{ market, timeframe: "h1", symbols: [{ symbol: "FEW", bars: bars(few, random) }, { symbol: "SPARSE", bars: bars(sparse, random) }] }]);
        }
        symbols.push("FEW", "SPARSE");
        for (let step = 0; step < 45; step++) {
          const r = random();
          const market = random() < 0.7 ? "CRYPTO" : "FOREX";
          const chosen = symbols.filter(() => random() < 0.5);
          const writer = random() < 0.5 ? store : other;
          if (r < 0.35 && chosen.length > 0) {
            // Append one closed bar (sometimes after a gap) to several series.
            await writer.upsertBars([
              {
                market,
                timeframe: "h1",
                symbols: chosen.map((symbol) => {
                  const t = last.get(`${market}/${symbol}`)! + H * (random() < 0.8 ? 1 : 3);
                  last.set(`${market}/${symbol}`, t);
                  return { symbol, bars: bars([t], random) };
                }),
              },
            ]);
          } else if (r < 0.45 && chosen.length > 0) {
            // The latest bar again, changed.
            await writer.upsertBars([{ market, timeframe: "h1", symbols: chosen.map((symbol) => ({ symbol, bars: bars([last.get(`${market}/${symbol}`)!], random) })) }]);
          } else if (r < 0.52 && chosen.length > 0) {
            // Bars in the past, overlapping.
            const from = START + Math.floor(random() * 150) * H;
            await writer.upsertBars([{ market, timeframe: "h1", symbols: chosen.map((symbol) => ({ symbol, bars: bars(Array.from({ length: 20 }, (_, k) => from + k * H), random) })) }]);
          } else if (r < 0.56) {
            const symbol = symbols[Math.floor(random() * symbols.length)]!;
            const from = last.get(`${market}/${symbol}`)! - 5 * H;
            await other.deleteBars({ market, symbol, from });
            last.set(`${market}/${symbol}`, from - H);
          } else if (r < 0.6) {
            const symbol = `N${step}`;
            const times = Array.from({ length: 30 }, (_, k) => START + k * H);
            await other.upsertBars([{ market, timeframe: "h1", symbols: [{ symbol, bars: bars(times, random) }] }]);
          } else {
            const q = compile(QUERIES[Math.floor(random() * QUERIES.length)]!);
            const lease = tier.lease();
            try {
              const hot = await fetchUniverse(store, q.plan, { cache: tier, lease, fetch: q.fetch });
              const cold = await fetchUniverse(store, q.plan, { fetch: q.fetch });
              expect(plain(hot, q.plan), `step ${step}`).toEqual(plain(cold, q.plan));
              expect(JSON.stringify(q.run(hot))).toBe(JSON.stringify(q.run(cold)));
            } finally {
              lease.release();
            }
          }
        }
        expect(tier.stats().hits).toBeGreaterThan(0);
      } finally {
        tier.close();
        await other.close();
        await store.close();
      }
    }, 120_000);
  }

  it("keeps a leased run's bars while a write lands, and refreshes only the series a write touched", async () => {
    const store = await open();
    const tier = new HotTier(store);
    const random = prng(9);
    try {
      const symbols = Array.from({ length: 40 }, (_, i) => `T${String(i).padStart(2, "0")}`);
      const times = Array.from({ length: 300 }, (_, k) => START + k * H);
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: symbols.map((symbol) => ({ symbol, bars: bars(times, random) })) }]);
      const q = compile(QUERIES[0]!);
      const lease = tier.lease();
      const held = await fetchUniverse(store, q.plan, { cache: tier, lease, fetch: q.fetch });
      const before = JSON.stringify(plain(held, q.plan));
      const loads = tier.stats().loads;
      // The latest h1 bar of every symbol rewritten, and one appended: the derived d bar in progress changes too.
      const next = START + 300 * H;
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: symbols.map((symbol) => ({ symbol, bars: bars([next - H, next], random) })) }]);
      // The tier takes the write in while the run still holds its views.
      await tier.sync(await store.dataVersion());
      expect(tier.stats().refreshed).toBeGreaterThan(0);
      expect(JSON.stringify(plain(held, q.plan))).toBe(before);
      lease.release();
      const after = await fetchUniverse(store, q.plan, { cache: tier, fetch: q.fetch });
      expect(plain(after, q.plan)).toEqual(plain(await fetchUniverse(store, q.plan, { fetch: q.fetch }), q.plan));
      expect(tier.stats().loads).toBe(loads);
      expect(tier.stats().refreshed).toBeGreaterThanOrEqual(symbols.length * 2);
    } finally {
      tier.close();
      await store.close();
    }
  });

  it("holds the times and the series requests name, and loads a group again when a request names another", async () => {
    const store = await open();
    const tier = new HotTier(store);
    const random = prng(5);
    try {
      const times = Array.from({ length: 300 }, (_, k) => START + k * H);
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: Array.from({ length: 20 }, (_, i) => ({ symbol: `C${i}`, bars: bars(times, random) })) }]);
      const closes = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 0');
      const highs = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [high]\nhigh > 0');
      const same = async (q: typeof closes): Promise<void> => {
        const hot = await fetchUniverse(store, q.plan, { cache: tier, fetch: q.fetch });
        expect(plain(hot, q.plan)).toEqual(plain(await fetchUniverse(store, q.plan, { fetch: q.fetch }), q.plan));
      };
      await same(closes);
      const { loads, bytes } = tier.stats();
      expect(loads).toBe(1);
      await same(highs);
      // Times, closes and highs now: half as much again as times and closes.
      expect(tier.stats()).toMatchObject({ loads: 2, bytes: bytes * 1.5 });
      await same(closes);
      expect(tier.stats().loads).toBe(2);
    } finally {
      tier.close();
      await store.close();
    }
  });

  it("hands a warm run the same bars again while nothing changed, and new ones where a write landed", async () => {
    const store = await open();
    const tier = new HotTier(store);
    const random = prng(6);
    try {
      const times = Array.from({ length: 300 }, (_, k) => START + k * H);
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: ["A", "B", "C"].map((symbol) => ({ symbol, bars: bars(times, random) })) }]);
      const q = compile(QUERIES[0]!);
      const first = await fetchUniverse(store, q.plan, { cache: tier, fetch: q.fetch });
      const again = await fetchUniverse(store, q.plan, { cache: tier, fetch: q.fetch });
      expect(again).toBe(first);
      // Another screen over the same base answer but more sources joins its own.
      const wider = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, d::close, h4::rsi(14), w::close]\nclose > 0');
      const widened = await fetchUniverse(store, wider.plan, { cache: tier, fetch: wider.fetch });
      expect(plain(widened, wider.plan)).toEqual(plain(await fetchUniverse(store, wider.plan, { fetch: wider.fetch }), wider.plan));
      for (const [k, instrument] of again.entries()) {
        for (const { timeframe } of q.plan.sources) expect(instrument.bars[timeframe]).toBe(first[k]!.bars[timeframe]);
      }
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "B", bars: bars([START + 300 * H], random) }] }]);
      const after = await fetchUniverse(store, q.plan, { cache: tier, fetch: q.fetch });
      expect(after[0]!.bars.h1).toBe(first[0]!.bars.h1);
      expect(after[1]!.bars.h1).not.toBe(first[1]!.bars.h1);
      expect(plain(after, q.plan)).toEqual(plain(await fetchUniverse(store, q.plan, { fetch: q.fetch }), q.plan));
    } finally {
      tier.close();
      await store.close();
    }
  });

  it("leaves the least recently used timeframes out beyond its budget, and still answers", async () => {
    const store = await open();
    const tier = new HotTier(store, { budgetBytes: 400 * 1024 });
    const random = prng(4);
    try {
      const times = Array.from({ length: 400 }, (_, k) => START + k * H);
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: Array.from({ length: 10 }, (_, i) => ({ symbol: `B${i}`, bars: bars(times, random) })) }]);
      for (const text of QUERIES.filter((t) => t.includes("CRYPTO"))) {
        const q = compile(text);
        const hot = await fetchUniverse(store, q.plan, { cache: tier, fetch: q.fetch });
        expect(plain(hot, q.plan)).toEqual(plain(await fetchUniverse(store, q.plan, { fetch: q.fetch }), q.plan));
        expect(tier.stats().bytes).toBeLessThanOrEqual(400 * 1024);
      }
    } finally {
      tier.close();
      await store.close();
    }
  });

  it("rejects when the store is gone, even with every bar in memory", async () => {
    const store = await open();
    const tier = new HotTier(store);
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "X", bars: bars([START, START + H], prng(1)) }] }]);
    const q = compile(QUERIES[3]!);
    await fetchUniverse(store, q.plan, { cache: tier });
    await store.close();
    await expect(fetchUniverse(store, q.plan, { cache: tier })).rejects.toThrow();
    tier.close();
  });
}


