/**
 * The one write path (src/store/engine/writer.ts) through the store's public write methods, so
 * the tests hold whatever files the writer is split into: a new series packed into blocks, an
 * append merged into the tail bar by bar past the tail's limit and a block's end, a bar still in
 * progress written again, a backfill before the first bar, an overlap in the past across
 * blocks, a series replaced whole, a delete, a write refused all or nothing — each read back
 * against a model of the bars written, the coarser timeframes against an aggregation of the
 * model (test/kit's, not the store's), and each write's change record against what it wrote.
 * On a real SQLite file always, and on PostgreSQL when XQL_TEST_DATABASE_URL is set.
 */
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../../src/open/open.js";
import type { DataChange } from "../../../src/store/store.js";
import { RAW_SERIES, type Timeframe } from "../../../src/types.js";
import { type ArrayBars, DATABASE_URL, HOUR, MONDAY, aggregate, needsPostgres, prng, tempDir } from "../../kit/index.js";
import { freshDatabase } from "../../scale/helpers.js";

const MARKET = "CRYPTO";
/** The timeframes a CRYPTO h1 series derives (UTC periods). */
const DERIVED: readonly Timeframe[] = ["h4", "d", "w"];

/** `n` seeded h1 bars from `first` (ms), a random walk with volumes. */
function h1Bars(seed: number, first: number, n: number): ArrayBars {
  const rand = prng(seed);
  const out = { time: [] as number[], open: [] as number[], high: [] as number[], low: [] as number[], close: [] as number[], volume: [] as number[] };
  let price = 100 + rand() * 10;
  for (let i = 0; i < n; i++) {
    const open = price;
    const close = Math.round(open * (1 + (rand() - 0.5) * 0.02) * 1e4) / 1e4;
    out.time.push(first + i * HOUR);
    out.open.push(open);
    out.close.push(close);
    out.high.push(Math.max(open, close) + Math.round(rand() * 100) / 1e4);
    out.low.push(Math.min(open, close) - Math.round(rand() * 100) / 1e4);
    out.volume.push(Math.round(rand() * 1000));
    price = close;
  }
  return {
    time: Float64Array.from(out.time),
    open: Float64Array.from(out.open),
    high: Float64Array.from(out.high),
    low: Float64Array.from(out.low),
    close: Float64Array.from(out.close),
    volume: Float64Array.from(out.volume),
  };
}

type Row = [time: number, open: number, high: number, low: number, close: number, volume: number];

function rowsOf(b: ArrayBars): Row[] {
  return Array.from(b.time, (t, i) => [t, b.open[i]!, b.high[i]!, b.low[i]!, b.close[i]!, b.volume[i]!]);
}

function barsOf(rows: readonly Row[]): ArrayBars {
  const column = (k: number) => Float64Array.from(rows, (r) => r[k]!);
  return { time: column(0), open: column(1), high: column(2), low: column(3), close: column(4), volume: column(5) };
}

/** The bars written to each symbol, by time: what the store must hold. */
class Model {
  readonly series = new Map<string, Map<number, Row>>();
  write(symbol: string, bars: ArrayBars, replace = false): void {
    let rows = this.series.get(symbol);
    if (!rows || replace) this.series.set(symbol, (rows = new Map()));
    for (const row of rowsOf(bars)) rows.set(row[0], row);
  }
  deleteFrom(symbol: string, from: number): number {
    const rows = this.series.get(symbol)!;
    let n = 0;
    for (const t of [...rows.keys()]) if (t >= from && rows.delete(t)) n++;
    return n;
  }
  bars(symbol: string): ArrayBars {
    return barsOf([...(this.series.get(symbol)?.values() ?? [])].sort((a, b) => a[0] - b[0]));
  }
}

async function read(store: Store, symbol: string, timeframe: Timeframe): Promise<Row[]> {
  const got = await store.latestBars({ market: MARKET, timeframe, baseTimeframe: timeframe, series: RAW_SERIES, count: 1_000_000, symbols: [symbol] });
  const bars = got.find((s) => s.symbol === symbol)?.bars;
  return bars ? rowsOf(bars as ArrayBars) : [];
}

/** The store holds the model's h1 bars exactly, and each coarser timeframe as their aggregation. */
async function expectHolds(store: Store, model: Model, symbol: string): Promise<void> {
  const h1 = model.bars(symbol);
  expect(await read(store, symbol, "h1"), `${symbol} h1`).toEqual(rowsOf(h1));
  for (const tf of DERIVED) expect(await read(store, symbol, tf), `${symbol} ${tf}`).toEqual(rowsOf(aggregate(h1, tf)));
}

const write = (store: Store, symbol: string, bars: ArrayBars, replace = false) =>
  store.upsertBars([{ market: MARKET, timeframe: "h1", replace, symbols: [{ symbol, bars }] }]);

/** The h1 entry of a local change's touched series, and the earliest `from` of its derived ones. */
function touchedOf(change: DataChange | undefined, symbol: string): { h1: number | undefined; derived: Map<Timeframe, number> } {
  const touched = (change?.touched ?? []).filter((t) => t.market === MARKET && t.symbol === symbol);
  return { h1: touched.find((t) => t.timeframe === "h1")?.from, derived: new Map(touched.filter((t) => t.timeframe !== "h1").map((t) => [t.timeframe, t.from])) };
}

function writerSuite(backend: string, open: () => Promise<Store>): void {
  describe(`the write path on ${backend}`, () => {
    let store: Store | undefined;
    const changes: DataChange[] = [];
    let stopWatching: (() => void) | undefined;
    const fresh = async (): Promise<Store> => {
      store = await open();
      stopWatching = store.watch((change) => changes.push(change));
      return store;
    };
    afterEach(async () => {
      stopWatching?.();
      changes.length = 0;
      await store?.close();
      store = undefined;
    });

    it("packs a new series into blocks: 1,000 bars read back exactly, the coarser timeframes derived, the change from its first bar", async () => {
      const s = await fresh();
      const model = new Model();
      const bars = h1Bars(1, MONDAY, 1_000);
      const result = await write(s, "AAA", bars);
      model.write("AAA", bars);
      expect(result).toEqual({ written: 1_000, replaced: 0, symbols: 1, version: await s.dataVersion() });
      await expectHolds(s, model, "AAA");
      const touched = touchedOf(changes.at(-1), "AAA");
      expect(touched.h1).toBe(MONDAY);
      expect([...touched.derived.keys()].sort()).toEqual([...DERIVED].sort());
      expect(await s.barCount()).toBe(1_000);
    });

    it("packs a write of many blocks sent in several batches (its block bytes reused batch after batch), then rewrites them all: every bar read back exactly", async () => {
      const s = await fresh();
      const model = new Model();
      // 120 symbols × 1,500 h1 bars and their derived bars: about 9 MB of block rows, sent in
      // batches of 2 MB, more than the two arrays the write packs them into in turn.
      const symbols = Array.from({ length: 120 }, (_, i) => `S${String(i).padStart(3, "0")}`);
      const first = symbols.map((symbol, i) => ({ symbol, bars: h1Bars(100 + i, MONDAY, 1_500) }));
      await s.upsertBars([{ market: MARKET, timeframe: "h1", symbols: first }]);
      for (const { symbol, bars } of first) model.write(symbol, bars);
      // Every bar again with other values, from a week in: each series' blocks read and rewritten.
      const second = symbols.map((symbol, i) => ({ symbol, bars: h1Bars(900 + i, MONDAY + 168 * HOUR, 1_400) }));
      await s.upsertBars([{ market: MARKET, timeframe: "h1", symbols: second }]);
      for (const { symbol, bars } of second) model.write(symbol, bars);
      for (const symbol of symbols) await expectHolds(s, model, symbol);
    });

    it("appends bar by bar past the tail's limit and a block's end (256 bars): every read equals the model, each change starts at its bar", async () => {
      const s = await fresh();
      const model = new Model();
      const all = h1Bars(2, MONDAY, 300);
      const first = barsOf(rowsOf(all).slice(0, 250));
      await write(s, "AAA", first);
      model.write("AAA", first);
      for (let i = 250; i < 300; i++) {
        const one = barsOf([rowsOf(all)[i]!]);
        const result = await write(s, "AAA", one);
        model.write("AAA", one);
        expect(result.written).toBe(1);
        expect(result.replaced).toBe(0);
        expect(touchedOf(changes.at(-1), "AAA").h1).toBe(all.time[i]);
        // The latest bars of each timeframe after every append (a full read every tenth).
        if (i % 10 === 9) await expectHolds(s, model, "AAA");
        else expect((await read(s, "AAA", "h1")).at(-1)).toEqual(rowsOf(all)[i]);
      }
      await expectHolds(s, model, "AAA");
    });

    it("writes a bar still in progress again: it replaces the stored one, and the coarser bars of its period follow", async () => {
      const s = await fresh();
      const model = new Model();
      const bars = h1Bars(3, MONDAY, 30);
      await write(s, "AAA", bars);
      model.write("AAA", bars);
      const last = rowsOf(bars).at(-1)!;
      const again = barsOf([[last[0], last[1], last[2] + 5, last[3] - 5, last[4] + 1, last[5] + 7]]);
      const result = await write(s, "AAA", again);
      model.write("AAA", again);
      expect(result).toMatchObject({ written: 1, replaced: 1, symbols: 1 });
      await expectHolds(s, model, "AAA");
    });

    it("backfills before the first bar and rewrites an overlap in the past across blocks: replaced counts the overlap, the change starts at the earliest bar", async () => {
      const s = await fresh();
      const model = new Model();
      const later = h1Bars(4, MONDAY + 600 * HOUR, 700);
      await write(s, "AAA", later);
      model.write("AAA", later);
      // 600 bars before the first (a backfill), then 300 bars over blocks already written.
      const before = h1Bars(5, MONDAY, 600);
      const backfill = await write(s, "AAA", before);
      model.write("AAA", before);
      expect(backfill).toMatchObject({ written: 600, replaced: 0 });
      expect(touchedOf(changes.at(-1), "AAA").h1).toBe(MONDAY);
      const overlap = h1Bars(6, MONDAY + 500 * HOUR, 300);
      const rewrite = await write(s, "AAA", overlap);
      model.write("AAA", overlap);
      expect(rewrite).toMatchObject({ written: 300, replaced: 300 });
      expect(touchedOf(changes.at(-1), "AAA").h1).toBe(MONDAY + 500 * HOUR);
      await expectHolds(s, model, "AAA");
      expect(await s.barCount()).toBe(1_300);
    });

    it("replaces a series whole with replace: the old bars are gone, the coarser ones derived from the new alone, other symbols untouched", async () => {
      const s = await fresh();
      const model = new Model();
      const old = h1Bars(7, MONDAY, 400);
      const other = h1Bars(8, MONDAY, 50);
      await s.upsertBars([{ market: MARKET, timeframe: "h1", symbols: [{ symbol: "AAA", bars: old }, { symbol: "BBB", bars: other }] }]);
      model.write("AAA", old);
      model.write("BBB", other);
      const fresher = h1Bars(9, MONDAY + 100 * HOUR, 120);
      const result = await write(s, "AAA", fresher, true);
      model.write("AAA", fresher, true);
      expect(result).toMatchObject({ written: 120, symbols: 1 });
      await expectHolds(s, model, "AAA");
      await expectHolds(s, model, "BBB");
    });

    it("deletes bars from a time: the count removed, the coarser bars derived again, the change from that time", async () => {
      const s = await fresh();
      const model = new Model();
      const bars = h1Bars(10, MONDAY, 500);
      await write(s, "AAA", bars);
      model.write("AAA", bars);
      const from = MONDAY + 333 * HOUR;
      expect(await s.deleteBars({ symbol: "AAA", market: MARKET, timeframe: "h1", from })).toBe(model.deleteFrom("AAA", from));
      await expectHolds(s, model, "AAA");
      expect(touchedOf(changes.at(-1), "AAA").h1).toBe(from);
    });

    it("writes all or nothing: a bar that is not finite in one symbol leaves every symbol and the data version as they were", async () => {
      const s = await fresh();
      const model = new Model();
      const a = h1Bars(11, MONDAY, 40);
      await write(s, "AAA", a);
      model.write("AAA", a);
      const version = await s.dataVersion();
      const good = h1Bars(12, MONDAY + 40 * HOUR, 5);
      const bad = h1Bars(13, MONDAY, 5);
      bad.close[3] = Number.NaN;
      await expect(
        s.upsertBars([{ market: MARKET, timeframe: "h1", symbols: [{ symbol: "AAA", bars: good }, { symbol: "BBB", bars: bad }] }]),
      ).rejects.toThrow(/not a finite number/);
      expect(await s.dataVersion()).toBe(version);
      await expectHolds(s, model, "AAA");
      expect(await read(s, "BBB", "h1")).toEqual([]);
    });

    it("keeps a change log: changesSince names every series each write after a version touched", async () => {
      const s = await fresh();
      await write(s, "AAA", h1Bars(14, MONDAY, 20));
      const version = await s.dataVersion();
      await write(s, "BBB", h1Bars(15, MONDAY, 20));
      await write(s, "AAA", h1Bars(16, MONDAY + 20 * HOUR, 3));
      const since = await s.changesSince!(version);
      expect(since.version).toBe(await s.dataVersion());
      const named = new Set(since.touched!.map((t) => `${t.symbol} ${t.timeframe}`));
      for (const symbol of ["AAA", "BBB"]) for (const tf of ["h1", ...DERIVED]) expect(named, `${symbol} ${tf}`).toContain(`${symbol} ${tf}`);
      expect(since.touched!.find((t) => t.symbol === "AAA" && t.timeframe === "h1")!.from).toBe(MONDAY + 20 * HOUR);
    });
  });
}

const temp = tempDir();
afterAll(temp.cleanup);
let files = 0;
writerSuite("SQLite", () => openStore(join(temp.dir, `writer-${files++}.db`)));

needsPostgres("the write path on PostgreSQL", () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });
  writerSuite("PostgreSQL", async () => {
    const fresh = await freshDatabase(DATABASE_URL!);
    drops.push(fresh.drop);
    return openStore(fresh.url);
  });
});
