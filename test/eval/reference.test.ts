/**
 * The evaluator against naive reference loops (./reference.ts, written from decisions §1 with no
 * code from src/): for many queries over seeded bars, `compile(text).run(universe)` must return
 * exactly the reference's symbols in the reference's order, with every column value equal to
 * 1e-9 relative (null exactly where the reference value is not finite).
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/index.js";
import { symbolName, tickWalk, type ArrayBars } from "../kit/index.js";
import {
  abs, add, and, ago, atr, avg, bb_lower, bb_upper, change, close, close9, crossover, crossunder, div, ema, eq,
  expectedRun, ge, gt, hl2, hlc3, high, highest, le, low, lowest, lt, macd, macd_hist, macd_signal, max, min, mul,
  named, ne, neg, not, num, ohlc4, open, or, queryText, roc, rsi, sma, stdev, sub, TRUE, volume, wma,
  type RefInstrument, type RefQuery,
} from "./reference.js";

/** 40 instruments: mostly 300 bars, some short (below various lookbacks), one flat, some with zero volumes. */
function universe(): RefInstrument[] {
  const lengths = [300, 300, 300, 300, 300, 300, 300, 300, 250, 220, 201, 200, 199, 120, 60, 53, 52, 40, 30, 27, 26, 22, 21, 20, 16, 15, 14, 5, 1];
  const out: RefInstrument[] = [];
  for (let i = 0; i < 40; i++) {
    const count = lengths[i % lengths.length]!;
    const h1: ArrayBars = tickWalk({
      seed: 1000 + i,
      count,
      timeframe: "h1",
      vol: 0.004 + (i % 5) * 0.003,
      // One instrument is flat at an integer price (zero volume, RSI exactly 100, σ exactly 0,
      // sums exact, so ties such as close == sma(20) are exact for both sides); some have zero volumes.
      ...(i === 3 ? { flat: [0, count] as const, price: 100 } : {}),
      ...(i % 7 === 2 ? { zeroVolume: 0.3 } : {}),
    });
    out.push({ symbol: symbolName(39 - i), bars: { h1 } });
  }
  return out;
}

const avgv = named("avgv", avg(volume, 20));
const fast = named("fast", ema(close, 9));
const slow = named("slow", ema(close, 21));
const rsi14 = rsi(14);
const FLAT = symbolName(39 - 3);
const cases: { name: string; q: Omit<RefQuery, "timeframe">; includes?: string }[] = [
  { name: "all, no columns", q: { condition: TRUE } },
  { name: "rsi threshold, rsi column and sort", q: { condition: lt(rsi14, num(50)), columns: [close, rsi14], sort: [[rsi14, "asc"]] } },
  { name: "rsi desc with limit", q: { condition: TRUE, columns: [rsi14], sort: [[rsi14, "desc"]], limit: 7 } },
  { name: "the screener", q: { lets: [avgv], condition: or(and(lt(rsi14, num(30)), gt(volume, mul(avgv, num(2)))), crossover(ema(close, 9), ema(close, 21)), and(ge(close, highest(high, 52)), gt(close, sma(200)))), columns: [close, rsi14, volume], sort: [[rsi14, "asc"]], limit: 20 } },
  { name: "lets in a crossover", q: { lets: [fast, slow], condition: or(crossover(fast, slow), crossunder(fast, slow), gt(fast, slow)), columns: [fast, slow, sub(fast, slow)] } },
  { name: "offsets close[3]", q: { condition: gt(close, ago(close, 3)), columns: [ago(close, 3), ago(close, 0), ago(high, 10)] } },
  { name: "rsi(14)[1] rising", q: { condition: gt(rsi14, ago(rsi14, 1)), columns: [rsi14, ago(rsi14, 1), ago(rsi14, 5)], sort: [[ago(rsi14, 1), "desc"]] } },
  { name: "offset of a boolean", q: { condition: or(ago(gt(close, open), 1), ago(crossover(close, sma(10)), 2)), columns: [ago(gt(close, open), 1)] } },
  { name: "roc and change", q: { condition: gt(roc(10), num(0)), columns: [roc(10), roc(high, 3), change(5), change(volume, 1)], sort: [[roc(10), "desc"]] } },
  { name: "bollinger bands", q: { condition: or(gt(close, bb_upper(20, 2)), lt(close, bb_lower(20, 2)), lt(close, bb_lower(hl2, 10, 1.5))), columns: [bb_upper(20, 2), bb_lower(20, 2), bb_lower(hl2, 10, 1.5), stdev(20)] } },
  { name: "bands with negative k", q: { condition: gt(close, bb_upper(close, 20, -1)), columns: [bb_upper(close, 20, -1)] } },
  { name: "macd family", q: { condition: gt(macd(12, 26), macd_signal(12, 26, 9)), columns: [macd(12, 26), macd_signal(12, 26, 9), macd_hist(12, 26, 9), macd(hlc3, 5, 3)], sort: [[macd_hist(12, 26, 9), "desc"]] } },
  { name: "macd cross", q: { condition: or(crossover(macd(12, 26), macd_signal(12, 26, 9)), crossunder(macd(8, 17), macd_signal(8, 17, 5))), columns: [macd_hist(8, 17, 5)] } },
  { name: "atr", q: { condition: gt(atr(14), mul(close, num(0.005))), columns: [atr(14), atr(3), div(atr(14), close)], sort: [[atr(14), "desc"]] } },
  { name: "highest and lowest", q: { condition: or(ge(close, highest(high, 20)), le(close, lowest(low, 20)), ge(high, highest(10))), columns: [highest(high, 52), lowest(52), highest(close, 5), lowest(rsi14, 10)] } },
  { name: "price averages", q: { condition: gt(hl2, hlc3), columns: [hl2, hlc3, ohlc4, sma(ohlc4, 5), ema(hl2, 10)] } },
  { name: "abs, min, max", q: { condition: gt(abs(change(close, 1)), mul(atr(14), num(0.5))), columns: [abs(change(close, 1)), min(open, close), max(open, close), max(sma(5), sma(10))] } },
  { name: "min and max in a condition", q: { condition: and(gt(min(open, close), sma(20)), lt(max(open, close), mul(sma(20), num(1.02)))), columns: [min(open, close)] } },
  { name: "arithmetic", q: { condition: gt(sub(div(add(close, open), num(2)), mul(num(0.5), hl2)), num(-1)), columns: [add(close, mul(open, num(2))), sub(close, sub(open, num(1))), div(close, div(open, num(2))), neg(change(1)), mul(neg(close), num(-1))] } },
  { name: "precedence in arithmetic", q: { condition: lt(sub(sub(close, open), num(0.1)), mul(add(high, low), num(0.01))), columns: [sub(sub(close, open), num(0.1)), sub(close, sub(open, num(0.1)))] } },
  { name: "not, and, or", q: { condition: or(not(gt(close, sma(20))), and(not(lt(rsi14, num(50))), not(crossover(close, sma(50))))), columns: [sma(20)] } },
  { name: "not over an and", q: { condition: not(and(gt(close, open), gt(volume, avg(volume, 10)))), columns: [] } },
  { name: "equality and inequality", q: { condition: or(eq(close, highest(close, 3)), ne(open, ago(close, 1))), columns: [highest(close, 3)] } },
  { name: "wma and sma", q: { condition: gt(wma(20), sma(20)), columns: [wma(20), wma(volume, 5), sma(high, 200)], sort: [[sub(wma(20), sma(20)), "asc"]] } },
  { name: "ema of rsi (warm-up on a warming input)", q: { condition: gt(ema(rsi14, 5), num(50)), columns: [ema(rsi14, 5), sma(rsi14, 3), rsi(ema(close, 3), 7)] } },
  { name: "rsi of hl2 and stdev of volume", q: { condition: lt(rsi(hl2, 9), num(60)), columns: [rsi(hl2, 9), stdev(volume, 10)] } },
  { name: "volume ratio (zero volume divides by zero)", q: { condition: TRUE, columns: [div(volume, avg(volume, 20)), div(close, volume)], sort: [[div(volume, avg(volume, 20)), "desc"]] } },
  { name: "division by zero makes comparisons false", q: { condition: or(gt(div(close, volume), num(0)), lt(div(neg(close), volume), num(0)), ne(div(close, volume), num(1)), eq(div(close, sub(open, open)), div(close, sub(open, open)))), columns: [div(close, volume)] } },
  { name: "two sort keys", q: { condition: TRUE, columns: [gt(close, open), rsi14], sort: [[gt(close, open), "desc"], [rsi14, "asc"]] } },
  { name: "sort by a short lookback, limited", q: { condition: gt(volume, num(0)), columns: [change(1)], sort: [[change(1), "asc"]], limit: 3 } },
  { name: "long lookback excludes short instruments", q: { condition: gt(close, sma(200)), columns: [sma(200)] } },
  { name: "columns lengthen the lookback too", q: { condition: TRUE, columns: [sma(52)] } },
  { name: "sort lengthens the lookback too", q: { condition: TRUE, sort: [[roc(25), "asc"]] } },
  { name: "deep offsets", q: { condition: gt(ago(sma(10), 5), ago(sma(10), 15)), columns: [ago(sma(10), 15), ago(ago(close, 2), 3)] } },
  { name: "crossunder of price and a band", q: { condition: or(crossunder(close, bb_lower(20, 1)), crossover(close, bb_upper(20, 1))), columns: [close] } },
  { name: "rsi 100 on flat data", q: { condition: ge(rsi14, num(100)), columns: [rsi14, stdev(10), roc(5)] }, includes: FLAT },
  { name: "flat data ties exactly: close == sma, σ = 0", q: { condition: and(eq(close, sma(20)), eq(stdev(20), num(0)), eq(bb_upper(20, 2), close)), columns: [sma(20)] }, includes: FLAT },
];

describe("run matches the reference loops", () => {
  const u = universe();
  const outcomes: number[] = [];
  for (const { name, q, includes } of cases) {
    it(name, () => {
      const query: RefQuery = { ...q, timeframe: "h1" };
      const text = queryText(query);
      const expected = expectedRun(query, u);
      const { results } = compile(text).run(u);
      expect(results.map((r) => r.symbol), text).toEqual(expected.map((r) => r.symbol));
      for (let i = 0; i < results.length; i++) {
        const got = results[i]!.columns;
        const want = expected[i]!.columns;
        expect(Object.keys(got)).toEqual(Object.keys(want));
        const scale = u.find((x) => x.symbol === results[i]!.symbol)!.bars.h1!.close.at(-1)!;
        for (const key of Object.keys(want)) {
          if (!close9(got[key]!, want[key]!, scale)) {
            expect.fail(`${name}: ${results[i]!.symbol} column '${key}' = ${got[key]}, reference ${want[key]}`);
          }
        }
      }
      if (includes !== undefined) expect(results.map((r) => r.symbol)).toContain(includes);
      outcomes.push(expected.length);
    });
  }
  it("the cases are not vacuous: most select some instruments but not all", () => {
    const partial = outcomes.filter((n) => n > 0 && n < u.length).length;
    expect(outcomes.length).toBe(cases.length);
    expect(partial).toBeGreaterThanOrEqual(cases.length * 0.7);
  });
});
