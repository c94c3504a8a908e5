/**
 * Properties of `run` over generated universes (fast-check): the order of instruments does not
 * matter, `limit` gives a prefix, a coarser bar that has not closed by the latest base bar's
 * close is never read (no lookahead), instruments never influence each other, and runs are
 * deterministic.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, syntheticUniverse, TIMEFRAME_MS, type Timeframe } from "../../src/index.js";
import { FIELDS, HOUR, MONDAY, multiTimeframe, prng, symbolName, type ArrayBars } from "../kit/index.js";

const QUERIES = [
  "columns = [close, rsi(14)]\nsort = rsi(14) asc\nrsi(14) < 60 or close > sma(20)",
  "columns = [d::close, (d::close)[1], h4::ema(close, 5)]\nsort = h4::ema(close, 5) desc\ncrossover(close, d::sma(3)) or close > d::close or h4::rsi(5) > 50",
  "columns = [w::highest(high, 2), d::atr(3)]\nsort = d::atr(3) desc, close asc\nclose >= w::highest(high, 2) * 0.95 or d::roc(2) > 0",
  "columns = [change(3), d::(w::close)]\nsort = change(3) desc\nnot (close < d::(w::close)) or change(3) > 0",
  "columns = [macd_hist(12, 26, 9), h4::bb_upper(10, 2)]\nsort = macd_hist(12, 26, 9) asc\ntrue",
  "columns = [close > open]\nsort = close > open desc\nh4::close[1] > 0",
  "columns = [d::sma(2) - d::sma(2)[1], w::close]\nsort = w::close asc\nd::close > d::open or w::close > 0",
];

const TFS: Timeframe[] = ["h1", "h4", "d", "w"];
type Inst = { symbol: string; bars: Partial<Record<Timeframe, ArrayBars>> };

/** A universe of 1..8 instruments with h1 bars aggregated to h4, d and w, each ending at its own hour. */
const universeArb = fc
  .record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    size: fc.integer({ min: 1, max: 8 }),
  })
  .map(({ seed, size }): Inst[] => {
    const rand = prng(seed);
    return Array.from({ length: size }, (_, i) => {
      const count = 5 + Math.floor(rand() * 400);
      const start = MONDAY + Math.floor(rand() * 14 * 24) * HOUR;
      return multiTimeframe(symbolName(Math.floor(rand() * 1000) * 10 + i), seed * 31 + i, "h1", count, TFS, { start, vol: 0.002 + rand() * 0.01 });
    });
  });

const queryArb = fc.constantFrom(...QUERIES);
const header = 'market = "CRYPTO"\ntimeframe = h1\n';
const OPTIONS = { numRuns: 40 };

function clone(u: Inst[]): Inst[] {
  return u.map((x) => ({
    symbol: x.symbol,
    bars: Object.fromEntries(Object.entries(x.bars).map(([tf, b]) => [tf, Object.fromEntries(FIELDS.map((f) => [f, b[f].slice()]))])),
  }));
}

describe("run properties", () => {
  it("the queries select something on typical universes (the properties are not vacuous)", () => {
    const u = fc.sample(universeArb, { numRuns: 30, seed: 7 }).flat();
    for (const q of QUERIES) expect(compile(header + q).run(u).results.length, q).toBeGreaterThan(3);
  });

  it("results do not depend on the order of instruments", () => {
    fc.assert(
      fc.property(queryArb, universeArb, fc.integer(), (q, u, permSeed) => {
        const rand = prng(permSeed);
        const shuffled = u.map((x) => [rand(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
        const c = compile(header + q);
        expect(c.run(shuffled).results).toEqual(c.run(u).results);
      }),
      OPTIONS,
    );
  });

  it("limit gives a prefix of the unlimited result", () => {
    fc.assert(
      fc.property(queryArb, universeArb, fc.integer({ min: 1, max: 10 }), (q, u, limit) => {
        const all = compile(header + q).run(u).results;
        const limited = compile(`${header}limit = ${limit}\n${q}`).run(u).results;
        expect(limited).toEqual(all.slice(0, limit));
      }),
      OPTIONS,
    );
  });

  it("a coarser bar that has not closed by the latest base bar's close never changes a result", () => {
    const value = fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom(NaN, 0, Infinity, 1e12));
    fc.assert(
      fc.property(queryArb, universeArb, fc.array(value, { minLength: 5, maxLength: 5 }), fc.boolean(), (q, u, values, append) => {
        const c = compile(header + q);
        const expected = c.run(u).results;
        const changed = clone(u);
        for (const inst of changed) {
          const h1 = inst.bars.h1!;
          const baseClose = h1.time[h1.time.length - 1]! + HOUR;
          for (const tf of ["h4", "d", "w"] as const) {
            const b = inst.bars[tf]!;
            const last = b.time.length - 1;
            const lastTime = b.time[last]!;
            if (lastTime + TIMEFRAME_MS[tf] > baseClose) {
              // The bar in progress: any values at all.
              ["open", "high", "low", "close", "volume"].forEach((f, k) => ((b as unknown as Record<string, Float64Array>)[f]![last] = values[k]!));
            }
            if (append || lastTime + TIMEFRAME_MS[tf] <= baseClose) {
              // A bar after it, which cannot have closed either.
              const next = lastTime + TIMEFRAME_MS[tf];
              expect(next + TIMEFRAME_MS[tf]).toBeGreaterThan(baseClose);
              const grown = {} as ArrayBars;
              for (const f of FIELDS) {
                grown[f] = new Float64Array(b[f].length + 1);
                grown[f].set(b[f]);
              }
              grown.time[last + 1] = next;
              ["open", "high", "low", "close", "volume"].forEach((f, k) => ((grown as unknown as Record<string, Float64Array>)[f]![last + 1] = values[4 - k]!));
              inst.bars[tf] = grown;
            }
          }
        }
        expect(c.run(changed).results).toEqual(expected);
      }),
      OPTIONS,
    );
  });

  it("in-progress coarser bars of the synthetic FOREX universe (weekends, bars ending mid-day) are never read", () => {
    let touched = 0;
    fc.assert(
      fc.property(queryArb, fc.integer({ min: 0, max: 14 * 24 * 4 - 1 }), fc.double({ min: 0.5, max: 2, noNaN: true }), (q, quarter, factor) => {
        const end = Date.UTC(2025, 5, 2) + quarter * 15 * 60_000;
        const u = syntheticUniverse({ market: "FOREX", symbols: 4, timeframes: ["h1", "h4", "d", "w"], bars: 150, seed: 3, end }) as Inst[];
        const c = compile(header + q);
        const expected = c.run(u).results;
        for (const inst of u) {
          const h1 = inst.bars.h1!;
          const baseClose = h1.time[h1.time.length - 1]! + HOUR;
          for (const tf of ["h4", "d", "w"] as const) {
            const b = inst.bars[tf]!;
            const last = b.time.length - 1;
            if (b.time[last]! + TIMEFRAME_MS[tf] > baseClose) {
              b.close[last] = b.close[last]! * factor;
              b.high[last] = b.high[last]! * factor * 2;
              b.low[last] = b.low[last]! / (factor * 2);
              touched++;
            }
          }
        }
        expect(c.run(u).results).toEqual(expected);
      }),
      { numRuns: 25 },
    );
    expect(touched).toBeGreaterThan(25);
  });

  it("values of one instrument never depend on another: run alone vs in a universe", () => {
    fc.assert(
      fc.property(queryArb, universeArb, (q, u) => {
        const c = compile(header + q);
        const together = c.run(u).results;
        const alone = u.flatMap((inst) => c.run([inst]).results);
        expect(new Set(together.map((r) => r.symbol))).toEqual(new Set(alone.map((r) => r.symbol)));
        for (const row of together) expect(row).toEqual(alone.find((r) => r.symbol === row.symbol));
      }),
      OPTIONS,
    );
  });

  it("is deterministic: the same query on the same bars, compiled again or run again, gives the same results", () => {
    fc.assert(
      fc.property(queryArb, universeArb, (q, u) => {
        const whole = compile(header + q).run(u);
        const first = whole.results;
        const c = compile(header + q);
        expect(c.run(clone(u)).results).toEqual(first);
        expect(c.run(u).results).toEqual(first);
        expect(JSON.stringify(c.run(u))).toBe(JSON.stringify({ results: first, meta: whole.meta }));
      }),
      OPTIONS,
    );
  });
});
