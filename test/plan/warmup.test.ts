/**
 * Warm-up (decisions §1 "Evaluation"): `compile(q).fetch` asks, per plan source, for
 * `max(minLookback, warmup)` bars, the warm-up being what the source's recursive calls need to
 * forget their seed to 1e-6 (nested chains add), at least 300 and at most `warmupCeiling`.
 * The numbers are derived by hand from ⌈ln(1e-6) / ln(1 − alpha)⌉; the last test shows the
 * point of it: on that many bars the values agree with the whole history to 1e-4.
 */
import { describe, expect, it } from "vitest";
import { compile, explain, syntheticUniverse } from "../../src/index.js";
import type { Instrument, Timeframe } from "../../src/types.js";

const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';
const fetchOf = (body: string, options?: { warmupCeiling?: number; lookbackCeiling?: number }) => compile(HEADER + body, options).fetch;
const cb = (alpha: number): number => Math.ceil(Math.log(1e-6) / Math.log(1 - alpha));

describe("compile(q).fetch", () => {
  it("is at least 300 bars, and the plan's minLookback when that is larger", () => {
    expect(fetchOf("close > sma(20)")).toEqual([{ timeframe: "h1", series: ["close"], bars: 300 }]);
    expect(fetchOf("rsi(14) < 30")).toEqual([{ timeframe: "h1", series: ["close"], bars: 300 }]);
    expect(fetchOf("close > sma(300)")[0]!.bars).toBe(300);
  });

  it("covers lookback plus convergence for rsi(200), ema(200), atr(200) and the MACD family", () => {
    // rsi: L = 201, alpha 1/200: 2757 bars.
    expect(cb(1 / 200)).toBe(2757);
    expect(fetchOf("rsi(200) < 30")[0]!.bars).toBe(201 + 2757);
    expect(fetchOf("ema(200) > 0")[0]!.bars).toBe(200 + cb(2 / 201));
    expect(fetchOf("atr(200) > 0")[0]).toEqual({ timeframe: "h1", series: ["close", "high", "low"], bars: 201 + 2757 });
    expect(fetchOf("macd(50, 100) > 0")[0]!.bars).toBe(100 + cb(2 / 101));
    // The signal EMA runs on the line: its warm-up adds to the slow EMA's.
    expect(fetchOf("macd_signal(50, 100, 40) > 0")[0]!.bars).toBe(100 + 39 + cb(2 / 101) + cb(2 / 41));
  });

  it("adds nested chains, offsets and the largest of several calls", () => {
    // ema(rsi(50), 50): L = 51 + 49 = 100; warm-up rsi 1/50 then ema 2/51.
    expect(fetchOf("ema(rsi(50), 50) > 0")[0]!.bars).toBe(100 + cb(1 / 50) + cb(2 / 51));
    // Through arithmetic too.
    expect(fetchOf("ema(rsi(50) * 2 - 1, 50) > 0")[0]!.bars).toBe(100 + cb(1 / 50) + cb(2 / 51));
    expect(fetchOf("rsi(200)[7] < 30")[0]!.bars).toBe(7 + 201 + 2757);
    expect(fetchOf("rsi(100) < 30 and ema(200) > 0")[0]!.bars).toBe(Math.max(101 + cb(1 / 100), 200 + cb(2 / 201)));
    // A windowed function of a recursive one: the recursion must converge at the window's start.
    expect(fetchOf("sma(rsi(100), 50) > 0")[0]!.bars).toBe(150 + cb(1 / 100));
  });

  it("warms each timeframe for its own recursive calls", () => {
    const fetch = fetchOf("d::rsi(100) < 30 and close > sma(20)");
    expect(fetch).toEqual([
      { timeframe: "h1", series: ["close"], bars: 300 },
      { timeframe: "d", series: ["close"], bars: 101 + cb(1 / 100) },
    ]);
  });

  it("is capped by warmupCeiling (default 5000), never below minLookback", () => {
    expect(fetchOf("rsi(200) < 30", { warmupCeiling: 1000 })[0]!.bars).toBe(1000);
    expect(fetchOf("close > sma(250)", { warmupCeiling: 100 })[0]!.bars).toBe(250);
    // 600 + 4138 + 2070 > 5000.
    expect(fetchOf("ema(rsi(300), 300) > 0", { lookbackCeiling: 1000 })[0]!.bars).toBe(5000);
    expect(() => compile(HEADER + "close > 0", { warmupCeiling: 0 })).toThrow(TypeError);
    expect(() => compile(HEADER + "close > 0", { warmupCeiling: 2.5 })).toThrow("options.warmupCeiling must be a positive integer");
  });

  it("leaves the plan's shape alone", () => {
    const result = explain(HEADER + "rsi(200) < 30");
    if (!("plan" in result)) throw new Error("expected a plan");
    expect(result.plan).toEqual({ market: "CRYPTO", sources: [{ timeframe: "h1", series: ["close"], minLookback: 201 }] });
  });
});

describe("values on the fetched bars agree with the whole history", () => {
  const ALL = 6000;
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: 4, timeframes: ["h1"], bars: ALL, seed: 17 });
  const last = (instruments: Instrument[], tf: Timeframe, n: number): Instrument[] =>
    instruments.map((i) => {
      const b = i.bars[tf]!;
      const cut = (xs: ArrayLike<number>) => Array.prototype.slice.call(xs, Math.max(0, xs.length - n)) as number[];
      return { symbol: i.symbol, bars: { [tf]: { time: cut(b.time), open: cut(b.open), high: cut(b.high), low: cut(b.low), close: cut(b.close), volume: cut(b.volume) } } };
    });

  it.each([
    "rsi(200)",
    "ema(200)",
    "atr(200)",
    "macd_hist(26, 120, 30)",
    "ema(rsi(50), 50)",
  ])("%s to 1e-4 relative, where 300 bars did not", (call) => {
    const q = compile(`${HEADER}columns = [${call}]\ntrue`);
    const bars = q.fetch[0]!.bars;
    const full = q.run(universe).results;
    const warm = q.run(last(universe, "h1", bars)).results;
    const short = q.run(last(universe, "h1", 300)).results;
    let worstShort = 0;
    full.forEach((row, i) => {
      const want = row.columns[call]!;
      const got = warm[i]!.columns[call]!;
      expect(Math.abs(got - want) / Math.max(Math.abs(want), 1e-12), `${row.symbol}: ${got} vs ${want}`).toBeLessThanOrEqual(1e-4);
      const s = short[i]!.columns[call];
      if (typeof s === "number") worstShort = Math.max(worstShort, Math.abs(s - want) / Math.abs(want));
    });
    if (!call.startsWith("ema(rsi")) expect(worstShort).toBeGreaterThan(1e-4);
  });
});
