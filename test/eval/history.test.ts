/**
 * Screen history (decisions §5). The defining property: at every bar t of the window, history's
 * matches and column values are bit-identical to `run` over the universe truncated after t
 * (every timeframe cut at t's close and re-aggregated, as a store would have served it then),
 * over the instruments that have a base bar at t.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, validate, type HistoryResult, type Instrument, type Timeframe } from "../../src/index.js";
import { arbitraryExpression } from "../../src/testing/index.js";
import { printExpression } from "../../src/ast/print.js";
import { forwardStats } from "../../src/eval/history.js";
import { HOUR, MONDAY, cutInstrument, multiTimeframe, prng, symbolName, type ArrayBars } from "../kit/index.js";

type Inst = { symbol: string; bars: Partial<Record<Timeframe, ArrayBars>> };
const TFS: Timeframe[] = ["h1", "h4", "d", "w"];
const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';

/** 1..6 instruments of h1 bars (aggregated to h4, d, w), each starting and ending at its own hour. */
function universe(seed: number, size: number, minBars = 200, spread = 500): Inst[] {
  const rand = prng(seed);
  return Array.from({ length: size }, (_, i) => {
    const count = minBars + Math.floor(rand() * spread);
    const start = MONDAY + Math.floor(rand() * 72) * HOUR;
    return multiTimeframe(symbolName(i), seed * 31 + i, "h1", count, TFS, { start, vol: 0.002 + rand() * 0.01 });
  });
}

/** The run at window bar `time`: every instrument with an h1 bar then, cut after its close. */
function runAt(query: string, u: Inst[], time: number) {
  const cut: Instrument[] = [];
  for (const inst of u) {
    const h1 = inst.bars.h1!;
    if (!h1.time.includes(time)) continue;
    cut.push(cutInstrument(inst, "h1", time + HOUR));
  }
  return compile(query).run(cut).results;
}

function byTime(h: HistoryResult): Map<number, HistoryResult["matches"]> {
  const m = new Map<number, HistoryResult["matches"]>();
  for (const x of h.matches) {
    if (!m.has(x.time)) m.set(x.time, []);
    m.get(x.time)!.push(x);
  }
  return m;
}

/** Checks history against truncated runs at every window bar; returns the number of matches seen. */
function checkAgainstRuns(query: string, u: Inst[], bars: number): number {
  const h = compile(query).history(u, { bars });
  const times = [...new Set(u.flatMap((i) => Array.from(i.bars.h1!.time)))].sort((a, b) => a - b).slice(-bars);
  expect(h.stats.bars).toBe(times.length);
  const found = byTime(h);
  for (const t of times) {
    const expected = runAt(query, u, t)
      .map((r) => ({ time: t, symbol: r.symbol, columns: r.columns }))
      .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    // toEqual compares numbers with Object.is: bit-identical, -0 and +0 apart.
    expect(found.get(t) ?? [], `${query}\nat ${new Date(t).toISOString()}`).toEqual(expected);
  }
  return h.matches.length;
}

const FIXED = [
  // Shared subexpressions asked for different ranges: a windowed input of a recursive call that
  // is also a column, an offset, a crossover.
  "columns = [sma(5), rsi(sma(5), 3), sma(5)[2]]\nsort = sma(5) desc\nlimit = 3\nrsi(sma(5), 3) > 40 or crossover(sma(5), ema(8))",
  "columns = [d::close, (d::close)[1], h4::ema(close, 5)]\nsort = h4::ema(close, 5) desc\ncrossover(close, d::sma(3)) or close > d::close or h4::rsi(5) > 50",
  "columns = [w::highest(high, 2), d::atr(3)]\nsort = d::atr(3) desc, close asc\nlimit = 2\nclose >= w::highest(high, 2) * 0.95 or d::roc(2) > 0",
  "columns = [macd_hist(12, 26, 9), h4::bb_upper(10, 2), stdev(ema(close, 4), 6)]\nsort = macd_hist(12, 26, 9) asc\ntrue",
  "let m = ema(wma(close, 4), 6)\ncolumns = [m, highest(m, 3)]\nsort = m desc\nm > highest(m, 3)[1] and not (close < lowest(low, 5))",
];

describe("screen history equals run over truncated bars", () => {
  it.each(FIXED)("at every bar of the window: %s", (q) => {
    const u = universe(11, 6);
    const matched = checkAgainstRuns(HEADER + q, u, 60);
    expect(matched).toBeGreaterThan(0);
  });

  it("for random queries (every function, offsets, prefixes h1..w), at every bar", () => {
    const queryArb = fc
      .record({
        condition: arbitraryExpression({ type: "boolean", timeframe: "h1", maxDepth: 3 }),
        column: arbitraryExpression({ type: "number", timeframe: "h1", maxDepth: 3 }),
        limit: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        desc: fc.boolean(),
      })
      .map(({ condition, column, limit, desc }) => {
        const c = printExpression(column);
        return `${HEADER}columns = [${c}]\nsort = ${c} ${desc ? "desc" : "asc"}\n${limit ? `limit = ${limit}\n` : ""}${printExpression(condition)}`;
      })
      .filter((q) => validate(q).valid);
    fc.assert(
      fc.property(queryArb, fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 30 }), (q, seed, bars) => {
        checkAgainstRuns(q, universe(seed, 4, 150, 400), bars);
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });
});

describe("the window", () => {
  it("is the last N distinct base bar times of the universe; a symbol is evaluated where it has a bar", () => {
    const u = universe(5, 3);
    const q = compile(`${HEADER}columns = [close]\ntrue`);
    const h = q.history(u, { bars: 50 });
    const all = [...new Set(u.flatMap((i) => Array.from(i.bars.h1!.time)))].sort((a, b) => a - b);
    const window = all.slice(-50);
    expect(h.stats.bars).toBe(50);
    const expected = window.flatMap((t) =>
      u.filter((i) => i.bars.h1!.time.includes(t)).map((i) => ({ time: t, symbol: i.symbol, close: i.bars.h1!.close[i.bars.h1!.time.indexOf(t)] })),
    );
    expect(h.matches.map((m) => ({ time: m.time, symbol: m.symbol, close: m.columns.close }))).toEqual(expected);
    expect(h.meta.asOf).toBe(new Date(window[window.length - 1]!).toISOString());
    expect(h.meta.instruments).toBe(3);
    expect(h.stats.symbolsMatched).toBe(new Set(expected.map((e) => e.symbol)).size);
    expect(h.stats.symbolsMatched).toBeGreaterThan(1);
  });

  it("a window longer than the data covers every bar; bars must be a positive integer", () => {
    const u = universe(6, 2, 30, 10);
    const q = compile(`${HEADER}true`);
    const all = new Set(u.flatMap((i) => Array.from(i.bars.h1!.time)));
    expect(q.history(u, { bars: 10_000 }).stats.bars).toBe(all.size);
    expect(q.history(u).stats.bars).toBe(Math.min(100, all.size));
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => q.history(u, { bars: bad })).toThrow(RangeError);
  });

  it("sort and limit decide which instruments match at a bar; the matches are listed by symbol", () => {
    const u = universe(8, 6);
    const h = compile(`${HEADER}columns = [roc(1)]\nsort = roc(1) desc\nlimit = 2\ntrue`).history(u, { bars: 20 });
    for (const [t, rows] of byTime(h)) {
      expect(rows.length).toBeLessThanOrEqual(2);
      expect(rows.map((r) => r.symbol)).toEqual([...rows.map((r) => r.symbol)].sort());
      const best = runAt(`${HEADER}columns = [roc(1)]\nsort = roc(1) desc\nlimit = 2\ntrue`, u, t).map((r) => r.symbol).sort();
      expect(rows.map((r) => r.symbol)).toEqual(best);
    }
  });

  it("meta counts instruments without data and with too little history", () => {
    const u: Instrument[] = [
      multiTimeframe("FULL", 1, "h1", 100, TFS),
      { symbol: "NOBARS", bars: {} },
      // Ends with the others but has 10 bars only: never 15 for rsi(14).
      multiTimeframe("SHORT", 3, "h1", 10, TFS, { start: MONDAY + 90 * HOUR }),
      // Bars, but none in the window: nothing to evaluate, counted as without data.
      multiTimeframe("STALE", 4, "h1", 50, TFS),
    ];
    const h = compile(`${HEADER}rsi(14) > 0`).history(u, { bars: 5 });
    expect(h.meta).toMatchObject({ instruments: 4, skipped: { noData: 2, shortHistory: 1 } });
    expect(h.meta.matched).toBe(h.matches.length);
  });

  it("an empty universe has an empty window and null statistics", () => {
    const h = compile(`${HEADER}true`).history([], { bars: 10 });
    expect(h).toEqual({
      matches: [],
      stats: {
        bars: 0,
        matches: 0,
        symbolsMatched: 0,
        forward: {
          "1": { n: 0, mean: null, median: null, hitRate: null },
          "5": { n: 0, mean: null, median: null, hitRate: null },
          "20": { n: 0, mean: null, median: null, hitRate: null },
        },
      },
      meta: { instruments: 0, matched: 0, skipped: { shortHistory: 0, noData: 0 }, asOf: null },
    });
  });
});

describe("forward returns", () => {
  it("are the close-to-close returns k base bars after each match, only where k later bars exist", () => {
    const u = universe(21, 4);
    const q = `${HEADER}rsi(14) < 45`;
    const h = compile(q).history(u, { bars: 120 });
    expect(h.matches.length).toBeGreaterThan(10);
    for (const k of [1, 5, 20] as const) {
      const returns: number[] = [];
      for (const m of h.matches) {
        const bars = u.find((i) => i.symbol === m.symbol)!.bars.h1!;
        const i = bars.time.indexOf(m.time);
        if (i + k < bars.time.length) returns.push(100 * (bars.close[i + k]! / bars.close[i]! - 1));
      }
      const s = h.stats.forward[k];
      expect(s.n).toBe(returns.length);
      const sorted = [...returns].sort((a, b) => a - b);
      const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
      expect(s.mean!).toBeCloseTo(mean, 10);
      const mid = sorted.length >> 1;
      expect(s.median).toBe(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2);
      expect(s.hitRate).toBe(returns.filter((r) => r > 0).length / returns.length);
    }
    // Matches in the last 20 bars have no 20-bar return: with `true` every bar matches.
    const all = compile(`${HEADER}true`).history(u, { bars: 30 });
    const symbols = all.stats.symbolsMatched;
    expect(all.stats.forward["1"].n).toBeLessThan(all.stats.matches);
    expect(all.stats.forward["20"].n).toBeLessThanOrEqual(all.stats.forward["1"].n - 19 * symbols);
  });

  it("statistics by hand: odd and even counts, no returns, zero is not a hit", () => {
    expect(forwardStats([])).toEqual({ n: 0, mean: null, median: null, hitRate: null });
    expect(forwardStats([2, -1, 0])).toEqual({ n: 3, mean: 1 / 3, median: 0, hitRate: 1 / 3 });
    expect(forwardStats([4, 1, -3, 2])).toEqual({ n: 4, mean: 1, median: 1.5, hitRate: 0.75 });
  });
});
