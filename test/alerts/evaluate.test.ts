/**
 * The evaluation's reading and windowing (src/alerts/evaluate.ts) on a real SQLite store: an
 * alert far behind (more new bars than a run reads) gets every one of them, read again with
 * enough extra bars and equal to history over that read; a backfill beyond the catch-up bound
 * evaluates the latest bars; a bar still in progress waits for its close.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compile, historyAnchoredAsync } from "../../src/api.js";
import { evaluateGroup } from "../../src/alerts/evaluate.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { HOUR, MONDAY, tickWalk } from "../kit/index.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(close, 9)]\nrsi(close, 9) > 50';
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function storeWith(bars: number): Promise<SqliteStore> {
  const store = new SqliteStore(":memory:");
  stores.push(store);
  await store.upsertBars([
    { market: "CRYPTO", timeframe: "h1", symbols: ["AAA", "BBB", "CCC"].map((symbol, i) => ({ symbol, bars: tickWalk({ seed: 40 + i, count: bars, timeframe: "h1", start: MONDAY, vol: 0.01 }) })) },
  ]);
  return store;
}

const screen = (lastTime: number | null) => ({ id: "s", query: QUERY, compiled: compile(QUERY), lastTime, matching: [] });

describe("evaluateGroup", () => {
  it("evaluates every bar of an alert far behind, as history does over the bars read", async () => {
    const store = await storeWith(700);
    // 350 bars after the alert's last: more than the 300 a run reads.
    const last = MONDAY + 349 * HOUR;
    const { bars } = await evaluateGroup(store, [screen(last)], MONDAY + 10_000 * HOUR, { warmup: 300 });
    const evaluated = bars.get("s")!;
    expect(evaluated.map((b) => b.time)).toEqual(Array.from({ length: 350 }, (_, k) => MONDAY + (350 + k) * HOUR));
    // The read: the run's 300 bars, then with 2·0 + 1 … extra until 350 new bars were covered.
    const compiled = compile(QUERY);
    const universe = await fetchUniverse(store, compiled.plan, { warmup: 300, fetch: compiled.fetch, extraBaseBars: 599 });
    // As the service's history evaluates them: from each bar's anchors (decisions §9).
    const { result: history } = await historyAnchoredAsync(compiled, universe, { bars: 350 });
    for (const bar of evaluated) {
      const expected = history.matches.filter((m) => m.time === bar.time).map(({ symbol, columns }) => ({ symbol, columns }));
      expect(bar.matching, new Date(bar.time).toISOString()).toEqual(expected);
    }
    expect(evaluated.some((b) => b.events.length > 0)).toBe(true);
  });

  it("evaluates the latest bars of a backfill beyond the catch-up bound", async () => {
    const store = await storeWith(60);
    const { bars } = await evaluateGroup(store, [screen(MONDAY + 9 * HOUR)], MONDAY + 10_000 * HOUR, { warmup: 300, maxCatchUp: 5 });
    expect(bars.get("s")!.map((b) => b.time)).toEqual([55, 56, 57, 58, 59].map((k) => MONDAY + k * HOUR));
  });

  it("leaves a bar still in progress for its close, and says when that is", async () => {
    const store = await storeWith(60);
    const latest = MONDAY + 59 * HOUR;
    const now = latest + 30 * 60_000;
    const { bars, nextClose } = await evaluateGroup(store, [screen(MONDAY + 57 * HOUR)], now, { warmup: 300 });
    expect(bars.get("s")!.map((b) => b.time)).toEqual([MONDAY + 58 * HOUR]);
    expect(nextClose).toBe(latest + HOUR);
    const later = await evaluateGroup(store, [screen(MONDAY + 58 * HOUR)], latest + HOUR, { warmup: 300 });
    expect(later.bars.get("s")!.map((b) => b.time)).toEqual([latest]);
    expect(later.nextClose).toBeUndefined();
  });

  it("shares one evaluation between screens of the same canonical query at the same bar", async () => {
    const store = await storeWith(60);
    const a = screen(MONDAY + 50 * HOUR);
    // The same screen in other spacing: one canonical query (printQuery), one evaluation.
    const text = QUERY.replace("rsi(close, 9) > 50", "rsi( close,9 )>50");
    const b = { ...screen(MONDAY + 50 * HOUR), id: "t", query: text, compiled: compile(text) };
    const { bars } = await evaluateGroup(store, [a, b], MONDAY + 10_000 * HOUR, { warmup: 300 });
    const [x, y] = [bars.get("s")!, bars.get("t")!];
    expect(x.map((bar) => bar.time)).toEqual(y.map((bar) => bar.time));
    // The rows are the same objects: evaluated once.
    x.forEach((bar, i) => expect(bar.matching).toBe(y[i]!.matching));
  });

  it("gives an absent symbol no event and carries its state; its exit at its next bar carries that bar's columns", async () => {
    const store = new SqliteStore(":memory:");
    stores.push(store);
    const query = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';
    const bar = (h: number, close: number) => ({ time: [MONDAY + h * HOUR], open: [close], high: [close], low: [close], close: [close], volume: [1] });
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bar(0, 150) }, { symbol: "BBB", bars: bar(0, 150) }] }]);
    // Bar 1: only BBB has a bar (a feed's first bar after a weekend, say); bar 2: AAA is back, at 40.
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "BBB", bars: bar(1, 160) }] }]);
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bar(2, 40) }, { symbol: "BBB", bars: bar(2, 170) }] }]);
    const matching = [
      { symbol: "AAA", columns: { close: 150 } },
      { symbol: "BBB", columns: { close: 150 } },
    ];
    const s = { id: "s", query, compiled: compile(query), lastTime: MONDAY, matching };
    const { bars } = await evaluateGroup(store, [s], MONDAY + 10 * HOUR, { warmup: 300 });
    const [one, two] = bars.get("s")!;
    // Absence is not an exit (decisions §14): AAA still matches, with its last row.
    expect(one).toEqual({ time: MONDAY + HOUR, events: [], matching: [{ symbol: "AAA", columns: { close: 150 } }, { symbol: "BBB", columns: { close: 160 } }] });
    // At its own next bar AAA exits, with the values it stopped matching with (decisions §7).
    expect(two).toEqual({ time: MONDAY + 2 * HOUR, events: [{ symbol: "AAA", kind: "exit", columns: { close: 40 } }], matching: [{ symbol: "BBB", columns: { close: 170 } }] });
  });
});
