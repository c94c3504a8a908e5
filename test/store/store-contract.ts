/**
 * The store contract (issue 12): one suite every backend passes — import, derived timeframes
 * against an aggregation written here independently of src/data/derive.ts (random bars,
 * FOREX weekend gaps, weeks crossing months and years, partial last periods), incremental
 * append equal to a rebuild, overlap, a timeframe imported after being derived, fetch by
 * plan with meta, data version, keys and quota.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/open/open.js";
import type { DataChange } from "../../src/store/store.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { compile, deriveTimeframes } from "../../src/index.js";
import type { Bars, Timeframe } from "../../src/types.js";
import { RAW_SERIES, TIMEFRAMES, TIMEFRAME_MS } from "../../src/types.js";
import { type Row, aggregateByKey, forexKey } from "../sessions/independent.js";
import { engineModel } from "./engine-model.js";
import { hotTierContract } from "./hot-tier.js";
import { importBars } from "../../src/ingest/importer.js";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Signal, prng, until } from "../kit/index.js";

const H = 3_600_000;
const DAY = 24 * H;

/** CRYPTO periods: weeks start Monday 00:00 UTC (1970-01-05 was a Monday). Written without src/sessions. */
function bucket(t: number, tf: Timeframe): number {
  if (tf === "w") {
    const monday = Date.UTC(1970, 0, 5);
    return monday + Math.floor((t - monday) / (7 * DAY)) * 7 * DAY;
  }
  return Math.floor(t / TIMEFRAME_MS[tf]) * TIMEFRAME_MS[tf];
}

function rows(b: Bars): Row[] {
  return Array.from({ length: b.time.length }, (_, i) => ({ time: b.time[i]!, open: b.open[i]!, high: b.high[i]!, low: b.low[i]!, close: b.close[i]!, volume: b.volume[i]! }));
}

/** The expected coarse bars of `market` (FOREX on its New York session, through Intl; others UTC). */
function expectedAggregate(fine: Row[], tf: Timeframe, market = "FOREX"): Row[] {
  const forex = market === "FOREX" && (tf === "h4" || tf === "d" || tf === "w");
  return aggregateByKey(fine, (t) => (forex ? forexKey(t, tf) : bucket(t, tf)));
}

/** Seeded random h1 bars over [from, to) skipping FOREX weekends (Fri 22:00 to Sun 22:00 UTC) and random gaps. */
function forexH1(seed: number, from: number, to: number): Row[] {
  const rand = prng(seed);
  const out: Row[] = [];
  let price = 1 + rand();
  for (let t = from; t < to; t += H) {
    const d = new Date(t);
    const dow = d.getUTCDay();
    const hour = d.getUTCHours();
    const weekend = (dow === 5 && hour >= 22) || dow === 6 || (dow === 0 && hour < 22);
    if (weekend || rand() < 0.05) continue;
    const open = price;
    const close = Math.round(open * (1 + (rand() - 0.5) * 0.01) * 1e5) / 1e5;
    const high = Math.max(open, close) + Math.round(rand() * 100) / 1e5;
    const low = Math.min(open, close) - Math.round(rand() * 100) / 1e5;
    out.push({ time: t, open, high, low, close, volume: Math.floor(rand() * 1000) });
    price = close;
  }
  return out;
}

function toBars(r: Row[]): Bars {
  return {
    time: Float64Array.from(r, (x) => x.time),
    open: Float64Array.from(r, (x) => x.open),
    high: Float64Array.from(r, (x) => x.high),
    low: Float64Array.from(r, (x) => x.low),
    close: Float64Array.from(r, (x) => x.close),
    volume: Float64Array.from(r, (x) => x.volume),
  };
}

async function read(store: Store, market: string, tf: Timeframe, symbol: string): Promise<Row[]> {
  const got = await store.latestBars({ market, timeframe: tf, baseTimeframe: tf, series: RAW_SERIES, count: 100_000 });
  const s = got.find((x) => x.symbol === symbol);
  return s ? rows(s.bars) : [];
}

/**
 * Registers the contract suite for a backend; `open` gives a fresh, empty store, `another`
 * a second connection to the same database as a store `open` gave.
 */
export function storeContract(name: string, open: () => Promise<Store>, another: (store: Store) => Promise<Store>): void {
  describe(`store contract: ${name}`, () => {
    // 2025-12-01 .. 2026-02-10: weeks crossing a month and a year.
    const FROM = Date.UTC(2025, 11, 1);
    const TO = Date.UTC(2026, 1, 10, 13);

    it("derives h4, d and w from imported h1 exactly as an independent aggregation, weekends and gaps included", async () => {
      const store = await open();
      try {
        const h1 = forexH1(7, FROM, TO);
        await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1) }] }]);
        for (const tf of ["h4", "d", "w"] as const) {
          expect(await read(store, "FOREX", tf, "EURUSD")).toEqual(expectedAggregate(h1, tf));
        }
        // No Saturday bar: a period without finer bars has no derived bar.
        expect((await read(store, "FOREX", "d", "EURUSD")).some((r) => new Date(r.time).getUTCDay() === 6)).toBe(false);
        const status = await store.series("FOREX");
        expect(status.map((s) => [s.timeframe, s.derived]).sort()).toEqual([["d", true], ["h1", false], ["h4", true], ["w", true]]);
        expect(await store.barCount()).toBe(h1.length);
      } finally {
        await store.close();
      }
    });

    it("appending updates the coarser bars it touches: the same as deriving everything at once; overlaps replace", async () => {
      const store = await open();
      try {
        const h1 = forexH1(11, FROM, TO);
        const cut = Math.floor(h1.length * 0.7);
        await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "GBPUSD", bars: toBars(h1.slice(0, cut)) }] }]);
        const v1 = await store.dataVersion();
        // The second file overlaps the first by 30 bars, with changed closes there.
        const second = h1.slice(cut - 30).map((r, i) => (i < 30 ? { ...r, close: Math.min(r.high, Math.max(r.low, r.close)) , volume: r.volume + 1 } : r));
        await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "GBPUSD", bars: toBars(second) }] }]);
        expect(await store.dataVersion()).not.toBe(v1);
        const merged = [...h1.slice(0, cut - 30), ...second];
        expect(await read(store, "FOREX", "h1", "GBPUSD")).toEqual(merged);
        for (const tf of ["h4", "d", "w"] as const) expect(await read(store, "FOREX", tf, "GBPUSD")).toEqual(expectedAggregate(merged, tf));
      } finally {
        await store.close();
      }
    });

    it("keeps symbols spelled with a quote, a backslash, commas, braces, spaces or NULL apart through writes and appends", async () => {
      const store = await open();
      try {
        const symbols = ['A"B', "C\\D", "E,F", "{G}", "H I", "NULL", "null", "é∆"];
        const start = Date.UTC(2026, 0, 5);
        const bars = (i: number, from: number, n: number): Row[] =>
          Array.from({ length: n }, (_, k) => ({ time: from + k * H, open: i + k, high: i + k + 2, low: i + k - 1, close: i + k + 1, volume: 10 * i + k }));
        await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: symbols.map((symbol, i) => ({ symbol, bars: toBars(bars(i, start, 30)) })) }]);
        // An append of one bar to each (the catalog rows of every series rewritten at once).
        await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: symbols.map((symbol, i) => ({ symbol, bars: toBars(bars(i, start + 30 * H, 1)) })) }]);
        expect((await store.symbols("CRYPTO")).sort()).toEqual([...symbols].sort());
        for (const [i, symbol] of symbols.entries()) {
          const all = [...bars(i, start, 30), ...bars(i, start + 30 * H, 1)];
          expect(await read(store, "CRYPTO", "h1", symbol)).toEqual(all);
          expect(await read(store, "CRYPTO", "h4", symbol)).toEqual(expectedAggregate(all, "h4", "CRYPTO"));
        }
      } finally {
        await store.close();
      }
    });

    it("a timeframe imported after being derived is served as imported; a finer import re-derives from the finest", async () => {
      const store = await open();
      try {
        const h1 = forexH1(3, FROM, TO);
        await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "USDJPY", bars: toBars(h1) }] }]);
        const daily = expectedAggregate(h1, "d").map((r) => ({ ...r, close: r.close + 0, volume: 1 }));
        await store.upsertBars([{ market: "FOREX", timeframe: "d", symbols: [{ symbol: "USDJPY", bars: toBars(daily.slice(0, 10)) }] }]);
        expect(await read(store, "FOREX", "d", "USDJPY")).toEqual(daily.slice(0, 10));
        expect((await store.series("FOREX")).find((s) => s.timeframe === "d")!.derived).toBe(false);
        // Weekly stays derived from h1, the finest imported.
        expect(await read(store, "FOREX", "w", "USDJPY")).toEqual(expectedAggregate(h1, "w"));
        // m30 bars imported for one day: h1 stays imported; h4 and w now come from m30.
        const day = Date.UTC(2026, 0, 6);
        const m30: Row[] = Array.from({ length: 48 }, (_, i) => ({ time: day + i * 30 * 60_000, open: 2, high: 3, low: 1, close: 2.5, volume: 1 }));
        await store.upsertBars([{ market: "FOREX", timeframe: "m30", symbols: [{ symbol: "USDJPY", bars: toBars(m30) }] }]);
        expect(await read(store, "FOREX", "h1", "USDJPY")).toEqual(h1);
        expect(await read(store, "FOREX", "h4", "USDJPY")).toEqual(expectedAggregate(m30, "h4"));
        expect(await read(store, "FOREX", "w", "USDJPY")).toEqual(expectedAggregate(m30, "w"));
      } finally {
        await store.close();
      }
    });

    it("fetches by plan over every symbol of the market: d:: and w:: from h1 alone, meta counting missing data", async () => {
      const store = await open();
      try {
        const h1 = forexH1(5, FROM, TO);
        await store.upsertBars([
          { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1) }] },
          { market: "FOREX", timeframe: "m30", symbols: [] },
          { market: "FOREX", timeframe: "d", symbols: [{ symbol: "ONLYD", bars: toBars(expectedAggregate(h1, "d")) }] },
        ]);
        const q = compile('market = "FOREX"\ntimeframe = h1\ncolumns = [d::close, w::close]\nd::close > 0 and w::close > 0');
        const universe = await fetchUniverse(store, q.plan, { warmup: 300 });
        const { results, meta } = q.run(universe);
        const daily = expectedAggregate(h1, "d");
        const weekly = expectedAggregate(h1, "w");
        const lastClosed = (agg: Row[], tf: Timeframe) => agg.filter((r) => r.time + TIMEFRAME_MS[tf] <= h1.at(-1)!.time + H).at(-1)!.close;
        expect(results).toEqual([{ symbol: "EURUSD", columns: { "d::close": lastClosed(daily, "d"), "w::close": lastClosed(weekly, "w") } }]);
        expect(meta).toEqual({ instruments: 2, matched: 1, skipped: { shortHistory: 0, noData: 1 }, asOf: new Date(h1.at(-1)!.time).toISOString() });
      } finally {
        await store.close();
      }
    });

    it("reads the latest bars from packed blocks, dense or sparse, cut at the base close, only the named series", async () => {
      const store = await open();
      try {
        // Dense: 2,000 h1 bars; sparse: one bar every 20 hours (blocks 5% full), over the same years.
        const dense: Row[] = Array.from({ length: 2000 }, (_, i) => ({ time: FROM + i * H, open: i, high: i + 2, low: i - 1, close: i + 1, volume: i }));
        const sparse: Row[] = Array.from({ length: 2000 }, (_, i) => ({ time: FROM - 40_000 * H + i * 20 * H, open: i, high: i + 2, low: i - 1, close: i + 1, volume: i }));
        await store.upsertBars([
          { market: "X", timeframe: "h1", symbols: [{ symbol: "DENSE", bars: toBars(dense) }, { symbol: "SPARSE", bars: toBars(sparse) }] },
        ]);
        const got = await store.latestBars({ market: "X", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 300 });
        expect(got.map((g) => g.symbol)).toEqual(["DENSE", "SPARSE"]);
        expect(Array.from(got[0]!.bars.time)).toEqual(dense.slice(-300).map((r) => r.time));
        expect(Array.from(got[0]!.bars.close)).toEqual(dense.slice(-300).map((r) => r.close));
        expect(Array.from(got[1]!.bars.time)).toEqual(sparse.slice(-300).map((r) => r.time));
        expect(Number.isNaN(got[0]!.bars.open[0])).toBe(true);
        // The derived d of DENSE cut at its latest h1 close: the days opened before it, one in progress.
        const daily = await store.latestBars({ market: "X", timeframe: "d", baseTimeframe: "h1", series: ["close"], count: 10 });
        const expected = expectedAggregate(dense, "d", "X").slice(-11);
        expect(Array.from(daily[0]!.bars.time)).toEqual(expected.map((r) => r.time));
        expect(Array.from(daily[0]!.bars.close)).toEqual(expected.map((r) => r.close));
      } finally {
        await store.close();
      }
    });

    it("reads the latest bars with room to append after each symbol's, the same bars as without, whatever a series' length and density", async () => {
      const store = await open();
      try {
        const row = (time: number, i: number): Row => ({ time, open: i, high: i + 2, low: i - 1, close: i + 1, volume: i });
        const series: Record<string, Row[]> = {
          // Fewer bars than a block; a tail crossing into a new block (257 bars from a block's start); far more than read; sparse (the short re-read).
          FEW: Array.from({ length: 30 }, (_, i) => row(FROM + i * H, i)),
          CROSS: Array.from({ length: 257 }, (_, i) => row(Math.floor(FROM / (256 * H)) * 256 * H + i * H, i)),
          MANY: Array.from({ length: 1500 }, (_, i) => row(FROM + i * H, i)),
          SPARSE: Array.from({ length: 700 }, (_, i) => row(FROM - 30_000 * H + i * 17 * H, i)),
          // 200 bars, then 3,000 hours without any, then 60: the bars read lie blocks apart.
          GAP: Array.from({ length: 260 }, (_, i) => row(FROM - 3_300 * H + i * H + (i >= 200 ? 3_000 * H : 0), i)),
        };
        await store.upsertBars([{ market: "X", timeframe: "h1", symbols: Object.entries(series).map(([symbol, rows]) => ({ symbol, bars: toBars(rows) })) }]);
        const room = 5;
        for (const request of [
          { market: "X", timeframe: "h1", baseTimeframe: "h1", series: ["close", "high"], count: 300 },
          { market: "X", timeframe: "h4", baseTimeframe: "h1", series: ["close"], count: 80 },
        ] as const) {
          const plain = await store.latestBars(request);
          const roomy = await store.latestBarsWithRoom!(request, room);
          expect(roomy.map((s) => s.symbol)).toEqual(plain.map((s) => s.symbol));
          for (const [k, { symbol, bars }] of roomy.entries()) {
            for (const name of ["time", ...request.series] as const) expect(Array.from(bars[name]), `${symbol} ${name}`).toEqual(Array.from(plain[k]!.bars[name]));
          }
          if (request.timeframe === "h1") {
            expect(Array.from(roomy.find((s) => s.symbol === "SPARSE")!.bars.time)).toEqual(series.SPARSE!.slice(-300).map((r) => r.time));
            expect(Array.from(roomy.find((s) => s.symbol === "GAP")!.bars.close)).toEqual(series.GAP!.slice(-300).map((r) => r.close));
            expect(roomy.find((s) => s.symbol === "FEW")!.bars.time).toHaveLength(30);
          }
          // The room is the caller's: filling it changes no symbol's bars.
          const before = roomy.map(({ bars }) => Array.from(bars.time).concat(Array.from(bars.close)));
          for (const { bars } of roomy) {
            for (const name of ["time", ...request.series] as const) {
              const column = bars[name] as Float64Array;
              new Float64Array(column.buffer, column.byteOffset, column.length + room).fill(-1, column.length);
            }
          }
          expect(roomy.map(({ bars }) => Array.from(bars.time).concat(Array.from(bars.close)))).toEqual(before);
        }
      } finally {
        await store.close();
      }
    });

    it("reads only the symbols asked for, cut or not, and none of the others", async () => {
      const store = await open();
      try {
        const h1 = forexH1(21, FROM, TO);
        await store.upsertBars([
          { market: "FOREX", timeframe: "h1", symbols: ["AUDUSD", "EURUSD", "GBPUSD"].map((symbol) => ({ symbol, bars: toBars(h1) })) },
        ]);
        const one = await store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 50, symbols: ["EURUSD"] });
        expect(one.map((s) => s.symbol)).toEqual(["EURUSD"]);
        expect(Array.from(one[0]!.bars.time)).toEqual(h1.slice(-50).map((r) => r.time));
        const cut = await store.latestBars({ market: "FOREX", timeframe: "d", baseTimeframe: "h1", series: ["close"], count: 5, symbols: ["GBPUSD", "NOSUCH"] });
        expect(cut.map((s) => s.symbol)).toEqual(["GBPUSD"]);
        expect(await store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 5, symbols: [] })).toEqual([]);
        expect((await store.latestBars({ market: "FOREX", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 5 })).map((s) => s.symbol)).toEqual([
          "AUDUSD",
          "EURUSD",
          "GBPUSD",
        ]);
      } finally {
        await store.close();
      }
    });

    it("fetches the finer bars of a coarse base bar whose close lies far past the data (d base, m1 bars ending 00:30), as the library reads them", async () => {
      const store = await open();
      try {
        // 600 m1 bars ending at 00:29 UTC: the store derives the day in progress, which closes at midnight.
        const end = Date.UTC(2026, 0, 14, 0, 30);
        const m1: Row[] = Array.from({ length: 600 }, (_, i) => {
          const time = end - (600 - i) * 60_000;
          return { time, open: 100 + i, high: 101 + i, low: 99 + i, close: 100.5 + i, volume: 10 + i };
        });
        await store.upsertBars([{ market: "CRYPTO", timeframe: "m1", symbols: [{ symbol: "BTCUSDT", bars: toBars(m1) }] }]);
        const read = await store.latestBars({ market: "CRYPTO", timeframe: "m1", baseTimeframe: "d", series: ["close"], count: 300 });
        expect(read.map((s) => s.symbol)).toEqual(["BTCUSDT"]);
        expect(Array.from(read[0]!.bars.time)).toEqual(m1.slice(-301).map((r) => r.time));
        // The service's fetch and the library over every bar the store holds agree.
        for (const text of ["columns = [m1::close]\nm1::close > 0", "columns = [m5::close, close]\nm5::close > 0"]) {
          const q = compile(`market = "CRYPTO"\ntimeframe = d\n${text}`);
          const served = q.run(await fetchUniverse(store, q.plan, { warmup: 300 }));
          const all = Object.fromEntries(
            await Promise.all(
              q.plan.sources.map(async ({ timeframe }) => {
                const [bars] = await store.latestBars({ market: "CRYPTO", timeframe, baseTimeframe: timeframe, series: RAW_SERIES, count: 100_000 });
                return [timeframe, bars!.bars] as const;
              }),
            ),
          );
          const library = q.run([{ symbol: "BTCUSDT", bars: all }]);
          expect(served.results, text).toEqual(library.results);
          expect(served.results).toHaveLength(1);
          expect(served.meta.skipped).toEqual({ shortHistory: 0, noData: 0 });
        }
      } finally {
        await store.close();
      }
    });

    it("reports what a write did: bars written, how many replaced stored ones, symbols, the new data version", async () => {
      const store = await open();
      try {
        const h1 = forexH1(13, FROM, TO).slice(0, 100);
        const first = await store.upsertBars([
          { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1.slice(0, 60)) }, { symbol: "GBPUSD", bars: toBars(h1.slice(0, 10)) }] },
        ]);
        expect(first).toEqual({ written: 70, replaced: 0, symbols: 2, version: await store.dataVersion() });
        // 20 bars over stored ones and 40 new for EURUSD; 10 new for AUDUSD.
        const second = await store.upsertBars([
          { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1.slice(40, 100)) }, { symbol: "AUDUSD", bars: toBars(h1.slice(0, 10)) }] },
        ]);
        expect(second).toEqual({ written: 70, replaced: 20, symbols: 2, version: await store.dataVersion() });
        expect(second.version).toBeGreaterThan(first.version);
      } finally {
        await store.close();
      }
    });

    it("tells watchers of each write: its own at once, another connection's soon after, never the same version twice", async () => {
      const store = await open();
      const other = await another(store);
      const seen: DataChange[] = [];
      const told = new Signal();
      const stop = store.watch((change) => {
        seen.push(change);
        told.notify();
      });
      // A second watcher, told of every version in the same pass as the first.
      const witnessed: DataChange[] = [];
      const stopWitness = store.watch((change) => {
        witnessed.push(change);
        told.notify();
      });
      try {
        const h1 = forexH1(17, FROM, TO).slice(0, 20);
        const own = await store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1.slice(0, 10)) }] }]);
        expect(seen).toMatchObject([{ version: own.version, origin: "local" }]);
        // A local write says what it touched: the series written and those derived from it.
        expect(seen[0]!.touched).toEqual(
          expect.arrayContaining([
            { market: "FOREX", timeframe: "h1", symbol: "EURUSD", from: h1[0]!.time },
            { market: "FOREX", timeframe: "w", symbol: "EURUSD", from: expect.any(Number) },
          ]),
        );
        const remote = await other.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1.slice(10)) }] }]);
        await until(() => seen.length === 2, { signal: told });
        expect(seen[1]).toEqual({ version: remote.version, origin: "remote" });
        expect(await other.deleteBars({ symbol: "EURUSD", from: h1[15]!.time })).toBe(5);
        await until(() => seen.length === 3, { signal: told });
        expect(seen[2]!.version).toBeGreaterThan(remote.version);
        stop();
        const last = await other.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(h1.slice(15)) }] }]);
        // Once the witness is told of that write, a watcher still subscribed would have been told too.
        await until(() => witnessed.some((change) => change.version >= last.version), { signal: told });
        expect(seen).toHaveLength(3);
      } finally {
        stop();
        stopWitness();
        await other.close();
        await store.close();
      }
    });

    it("appends bar by bar to many series while another connection writes and deletes: every read equals an aggregation of all bars", async () => {
      const store = await open();
      const other = await another(store);
      try {
        // 300 symbols: more than one group of the write path, so its catalog rows come from several reads.
        const symbols = Array.from({ length: 300 }, (_, i) => `S${String(i).padStart(3, "0")}`);
        const history = new Map(symbols.map((symbol, i) => [symbol, forexH1(100 + i, FROM, TO).slice(0, 40)]));
        const write = (to: Store, pick: (symbol: string) => Row[]): Promise<unknown> =>
          to.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: symbols.map((symbol) => ({ symbol, bars: toBars(pick(symbol)) })).filter((s) => s.bars.time.length > 0) }]);
        const expectStored = async (at: Store, held: (symbol: string) => Row[]): Promise<void> => {
          for (const symbol of [symbols[0]!, symbols[150]!, symbols[299]!]) {
            const fine = held(symbol);
            expect(await read(at, "FOREX", "h1", symbol)).toEqual(fine);
            for (const tf of ["h4", "d", "w"] as const) expect(await read(at, "FOREX", tf, symbol)).toEqual(expectedAggregate(fine, tf));
          }
        };
        await write(store, (symbol) => history.get(symbol)!.slice(0, 30));
        // One bar per series per write, through the same handle: later appends use what it holds.
        for (let k = 30; k < 33; k++) await write(store, (symbol) => history.get(symbol)!.slice(k, k + 1));
        // Another connection appends two bars and changes an earlier one; this handle then appends on top.
        const changed = (symbol: string): Row[] => history.get(symbol)!.map((r, i) => (i === 20 ? { ...r, volume: r.volume + 7 } : r));
        await write(other, (symbol) => [changed(symbol)[20]!, ...history.get(symbol)!.slice(33, 35)]);
        await write(store, (symbol) => history.get(symbol)!.slice(35, 36));
        await expectStored(store, (symbol) => changed(symbol).slice(0, 36));
        // Another connection deletes the newest bars of one symbol; this handle's next append follows what is left.
        expect(await other.deleteBars({ market: "FOREX", symbol: symbols[150]!, from: history.get(symbols[150]!)![30]!.time })).toBe(6);
        await write(store, (symbol) => history.get(symbol)!.slice(36, 37));
        await expectStored(store, (symbol) => (symbol === symbols[150] ? [...changed(symbol).slice(0, 30), history.get(symbol)![36]!] : changed(symbol).slice(0, 37)));
        await expectStored(other, (symbol) => (symbol === symbols[150] ? [...changed(symbol).slice(0, 30), history.get(symbol)![36]!] : changed(symbol).slice(0, 37)));
      } finally {
        await other.close();
        await store.close();
      }
    });

    it("a write that fails after sending part of its rows leaves the next write working from what was committed", async () => {
      const store = await open();
      try {
        const symbols = Array.from({ length: 300 }, (_, i) => `F${String(i).padStart(3, "0")}`);
        const history = new Map(symbols.map((symbol, i) => [symbol, forexH1(700 + i, FROM, TO).slice(0, 30)]));
        const batch = (from: number, to: number) => [
          { market: "FOREX", timeframe: "h1" as const, symbols: symbols.map((symbol) => ({ symbol, bars: toBars(history.get(symbol)!.slice(from, to)) })) },
        ];
        await store.upsertBars(batch(0, 20));
        await store.upsertBars(batch(20, 21));
        // The listener hears each group of symbols as it is done. The failing write overlaps stored bars,
        // so each group reads blocks, and the first group's rows are sent before the second group reads:
        // failing at the second, part of the write had gone to the backend.
        let calls = 0;
        const failing = store.upsertBars(batch(15, 22), () => {
          if (++calls === 2) throw new Error("stop");
        });
        await expect(failing).rejects.toThrow("stop");
        await store.upsertBars(batch(22, 23));
        for (const symbol of [symbols[0]!, symbols[299]!]) {
          const fine = [...history.get(symbol)!.slice(0, 21), history.get(symbol)![22]!];
          expect(await read(store, "FOREX", "h1", symbol)).toEqual(fine);
          for (const tf of ["h4", "d", "w"] as const) expect(await read(store, "FOREX", tf, symbol)).toEqual(expectedAggregate(fine, tf));
        }
      } finally {
        await store.close();
      }
    });

    it("derives exactly what deriveTimeframes gives the library, FOREX across a daylight saving change and CRYPTO", async () => {
      const store = await open();
      try {
        // Broker-time hours around the US autumn change, weekend stubs included.
        const from = Date.UTC(2025, 9, 20);
        const to = Date.UTC(2025, 10, 20);
        const fx = forexH1(23, from, to);
        const stubs = [Date.UTC(2025, 9, 24, 23), Date.UTC(2025, 10, 2, 20)].map((time) => ({ time, open: 1, high: 1.2, low: 0.9, close: 1.1, volume: 3 }));
        const withStubs = [...fx, ...stubs].sort((a, b) => a.time - b.time);
        await store.upsertBars([
          { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: toBars(withStubs) }] },
          { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "BTCUSDT", bars: toBars(withStubs) }] },
        ]);
        for (const market of ["FOREX", "CRYPTO"]) {
          const symbol = market === "FOREX" ? "EURUSD" : "BTCUSDT";
          const library = deriveTimeframes({ symbol, bars: { h1: toBars(withStubs) } }, { market });
          for (const tf of ["h4", "d", "w"] as const) {
            expect(await read(store, market, tf, symbol), `${market} ${tf}`).toEqual(rows(library.bars[tf]!));
          }
        }
      } finally {
        await store.close();
      }
    });

    it("writes nothing when a bad line follows a million good ones", async () => {
      const store = await open();
      const file = join(tmpdir(), `xql-million-${process.pid}-${Math.random().toString(36).slice(2)}.csv`);
      try {
        await store.upsertBars([{ market: "CRYPTO", timeframe: "m1", symbols: [{ symbol: "KEEP", bars: toBars([{ time: Date.UTC(2021, 0, 4), open: 1, high: 2, low: 0.5, close: 1.5, volume: 1 }]) }] }]);
        const version = await store.dataVersion();
        const t0 = Date.UTC(2022, 0, 3);
        const lines = Array.from({ length: 1_000_000 }, (_, i) => `${t0 + i * 60_000},1.5,2.5,1.25,2,${i % 100}`);
        lines.push(`${t0 + 1_000_000 * 60_000},1.5,1.0,1.25,2,1`); // high below open
        writeFileSync(file, `${lines.join("\n")}\n`);
        await expect(
          importBars(store, file, { market: "CRYPTO", timeframe: "m1", symbol: "BTCUSDT", columns: ["time", "open", "high", "low", "close", "volume"], timeFormat: "ms" }),
        ).rejects.toThrow("line 1000001: high 1 is below open, close or low");
        expect(await store.dataVersion()).toBe(version);
        expect(await store.barCount()).toBe(1);
        expect((await store.series()).map((s) => s.symbol)).not.toContain("BTCUSDT");
      } finally {
        rmSync(file, { force: true });
        await store.close();
      }
    }, 120_000);

    engineModel(open);
    hotTierContract(open, another);

    it("watchlists: per account, replaced by name, at most the limit, deleted (migration 9)", async () => {
      const store = await open();
      try {
        expect(await store.putWatchlist("acct_w", "majors", ["EURUSD", "GBPUSD"], 5, 2)).toBe("created");
        expect(await store.putWatchlist("acct_w", "majors", ["USDJPY"], 6, 2)).toBe("replaced");
        expect(await store.putWatchlist("acct_w", "b", ["A"], 7, 2)).toBe("created");
        expect(await store.putWatchlist("acct_w", "c", ["A"], 8, 2)).toBe("limit");
        expect(await store.putWatchlist("acct_x", "majors", ["EURUSD"], 9, 2)).toBe("created");
        expect(await store.listWatchlists("acct_w")).toEqual([
          { name: "b", symbols: ["A"], updatedAt: 7 },
          { name: "majors", symbols: ["USDJPY"], updatedAt: 6 },
        ]);
        expect(await store.getWatchlist("acct_x", "majors")).toEqual({ name: "majors", symbols: ["EURUSD"], updatedAt: 9 });
        expect(await store.getWatchlist("acct_x", "b")).toBeUndefined();
        expect(await store.deleteWatchlist("acct_x", "b")).toBe(false);
        expect(await store.deleteWatchlist("acct_w", "b")).toBe(true);
        expect((await store.listWatchlists("acct_w")).map((w) => w.name)).toEqual(["majors"]);
      } finally {
        await store.close();
      }
    });

    it("keys and quota", async () => {
      const store = await open();
      try {
        await store.createAccount("acct_c", "free", 1);
        const key = await store.createKey({ hash: "hc", prefix: "xql_c", accountId: "acct_c", label: null }, 2);
        expect(await store.findKeyByHash("hc")).toEqual(key);
        const results = await Promise.all(Array.from({ length: 6 }, () => store.reserve("acct_c", "2026-01-02", 4)));
        expect(results.filter((r) => r.admitted)).toHaveLength(4);
        expect(await store.release("acct_c", "2026-01-02", 4)).toEqual({ used: 3, remaining: 1 });
        expect(await store.revokeKey("hc", 3)).toBe(true);
      } finally {
        await store.close();
      }
    });

    it("keys carry a scope: run unless write is asked for, listed and found with it; another scope is refused", async () => {
      const store = await open();
      try {
        await store.createAccount("acct_s", "plus", 1);
        const run = await store.createKey({ hash: "hr", prefix: "xql_r", accountId: "acct_s", label: null }, 2);
        const write = await store.createKey({ hash: "hw", prefix: "xql_w", accountId: "acct_s", label: "feed", scope: "write" }, 3);
        expect(run.scope).toBe("run");
        expect(write.scope).toBe("write");
        expect((await store.findKeyByHash("hw"))?.scope).toBe("write");
        expect((await store.findKeyByHash("hr"))?.scope).toBe("run");
        expect((await store.listKeys()).map((k) => [k.prefix, k.scope])).toEqual([
          ["xql_r", "run"],
          ["xql_w", "write"],
        ]);
        await expect(store.createKey({ hash: "hx", prefix: "xql_x", accountId: "acct_s", label: null, scope: "admin" as "run" }, 4)).rejects.toThrow(
          "Unknown scope 'admin'",
        );
      } finally {
        await store.close();
      }
    });
  });
}

export { TIMEFRAMES };
