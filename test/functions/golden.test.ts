/**
 * Hand-computed values and edge cases: small worked examples of each definition, flat series
 * (RSI 100, σ 0), seeds, inputs with leading NaN, ties in crossovers, and the accuracy of the
 * running window sum and of σ on large prices against exact arithmetic.
 */
import { CrossDown, CrossUp, EMA } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels } from "./series.js";
import { FIXTURES, alignEnd, disagreements, firstDefined, prng, run } from "./series.js";

const f64 = (xs: readonly number[]): Float64Array => Float64Array.from(xs);
const list = (xs: Float64Array): number[] => Array.from(xs);

describe("worked examples", () => {
  it("sma and wma: [1, 2, 3, 4] over 3 bars", () => {
    expect(list(run(kernels.sma, [f64([1, 2, 3, 4])], [3]))).toEqual([NaN, NaN, 2, 3]);
    // (1·1 + 2·2 + 3·3) / 6 and (1·2 + 2·3 + 3·4) / 6: the newest bar weighs n.
    expect(list(run(kernels.wma, [f64([1, 2, 3, 4])], [3]))).toEqual([NaN, NaN, 14 / 6, 20 / 6]);
  });

  it("ema seeds with the SMA of the first n values: [2, 4, 6, 8, 10] over 3 bars (alpha 0.5)", () => {
    expect(list(run(kernels.ema, [f64([2, 4, 6, 8, 10])], [3]))).toEqual([NaN, NaN, 4, 6, 8]);
  });

  it("ema's first value is exactly the SMA of the first n closes on every fixture", () => {
    for (const { close } of FIXTURES) {
      for (const n of [9, 21, 50]) {
        const e = run(kernels.ema, [close], [n]);
        let sum = 0;
        for (let j = 0; j < n; j++) sum += close[j]!;
        expect(firstDefined(e)).toBe(n - 1);
        expect(e[n - 1]).toBe(sum / n);
      }
    }
  });

  it("rsi: [1, 2, 3, 2, 3, 4] over 3 bars is 66.67, 77.78, 85.19 (Wilder, SMA seed)", () => {
    // Changes +1 +1 −1 +1 +1. Seed at bar 3: gain 2/3, loss 1/3, RS 2. Then RMA with alpha 1/3:
    // gain 7/9, loss 2/9 (RS 3.5); gain 23/27, loss 4/27 (RS 5.75).
    const r = run(kernels.rsi, [f64([1, 2, 3, 2, 3, 4])], [3]);
    expect(list(r.subarray(0, 3))).toEqual([NaN, NaN, NaN]);
    expect(r[3]).toBeCloseTo(100 - 100 / 3, 12);
    expect(r[4]).toBeCloseTo(100 - 100 / 4.5, 12);
    expect(r[5]).toBeCloseTo(100 - 100 / 6.75, 12);
  });

  it("rsi is 100 on a rising series, 0 on a falling one, and 100 on a flat one", () => {
    const up = run(kernels.rsi, [f64([1, 2, 3, 4, 5, 6])], [3]);
    const down = run(kernels.rsi, [f64([6, 5, 4, 3, 2, 1])], [3]);
    const flat = run(kernels.rsi, [new Float64Array(40).fill(101.37)], [14]);
    expect(list(up.subarray(3))).toEqual([100, 100, 100]);
    expect(list(down.subarray(3))).toEqual([0, 0, 0]);
    expect(firstDefined(flat)).toBe(14);
    for (let i = 14; i < 40; i++) expect(flat[i]).toBe(100);
  });

  it("rsi stays 100 through a flat stretch that follows only gains (average loss exactly 0)", () => {
    const xs = f64([10, 11, 12, ...new Array<number>(30).fill(12)]);
    const r = run(kernels.rsi, [xs], [3]);
    for (let i = 3; i < xs.length; i++) expect(r[i]).toBe(100);
  });

  it("atr: first value at bar n is the mean of TR[1..n], then Wilder's RMA", () => {
    const high = f64([10, 11, 12, 11]);
    const low = f64([9, 10, 10, 9]);
    const close = f64([9.5, 10.5, 11, 10]);
    // TR[1] = max(1, 1.5, 0.5) = 1.5; TR[2] = max(2, 1.5, 0.5) = 2; TR[3] = max(2, 0, 2) = 2.
    const a = run(kernels.atr, [high, low, close], [2]);
    expect(list(a)).toEqual([NaN, NaN, 1.75, 1.875]);
  });

  it("stdev is the population deviation: [2, 4, 4, 4, 5, 5, 7, 9] has σ = 2, bands 5 ± 2σ", () => {
    const xs = f64([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(run(kernels.stdev, [xs], [8])[7]).toBe(2);
    expect(run(kernels.bb_upper, [xs], [8, 2])[7]).toBe(9);
    expect(run(kernels.bb_lower, [xs], [8, 2])[7]).toBe(1);
    // A negative multiplier swaps the bands rather than failing.
    expect(run(kernels.bb_upper, [xs], [8, -2])[7]).toBe(1);
  });

  it("highest and lowest include the current bar", () => {
    const xs = f64([3, 1, 4, 1, 5, 9, 2, 6]);
    expect(list(run(kernels.highest, [xs], [3]))).toEqual([NaN, NaN, 4, 4, 5, 9, 9, 9]);
    expect(list(run(kernels.lowest, [xs], [3]))).toEqual([NaN, NaN, 1, 1, 1, 1, 2, 2]);
    expect(list(run(kernels.highest, [xs], [1]))).toEqual(list(xs));
  });

  it("roc is in percent and change is a plain difference", () => {
    const xs = f64([10, 11, 12.1, 6.05]);
    const roc = run(kernels.roc, [xs], [1]);
    expect(roc[0]).toBeNaN();
    expect(roc[1]).toBeCloseTo(10, 12);
    expect(roc[2]).toBeCloseTo(10, 12);
    expect(roc[3]).toBeCloseTo(-50, 12);
    expect(list(run(kernels.change, [xs], [2]))).toEqual([NaN, NaN, 12.1 - 10, 6.05 - 11]);
  });

  it("macd is ema(fast) − ema(slow), signal is the ema of the line, hist their difference, bit for bit", () => {
    for (const { close } of FIXTURES) {
      const line = run(kernels.macd, [close], [12, 26]);
      const signal = run(kernels.macd_signal, [close], [12, 26, 9]);
      const hist = run(kernels.macd_hist, [close], [12, 26, 9]);
      const fast = run(kernels.ema, [close], [12]);
      const slow = run(kernels.ema, [close], [26]);
      const signalOfLine = run(kernels.ema, [line], [9]);
      expect(firstDefined(line)).toBe(25);
      expect(firstDefined(signal)).toBe(33);
      for (let i = 0; i < close.length; i++) {
        expect(Object.is(line[i], i < 25 ? NaN : fast[i]! - slow[i]!)).toBe(true);
        expect(Object.is(signal[i], signalOfLine[i])).toBe(true);
        expect(Object.is(hist[i], i < 33 ? NaN : line[i]! - signal[i]!)).toBe(true);
      }
    }
  });
});

describe("flat series", () => {
  for (const price of [101.37, 0.1, 48_213.77]) {
    it(`at ${price}: σ is exactly 0, bands collapse, RSI is 100, ATR 0, averages equal the price`, () => {
      const xs = new Float64Array(60).fill(price);
      const rel = (v: number): number => Math.abs(v - price) / price;
      const sd = run(kernels.stdev, [xs], [20]);
      const up = run(kernels.bb_upper, [xs], [20, 2]);
      const lo = run(kernels.bb_lower, [xs], [20, 2]);
      const rsi = run(kernels.rsi, [xs], [14]);
      const atr = run(kernels.atr, [xs, xs, xs], [14]);
      const sma = run(kernels.sma, [xs], [20]);
      const ema = run(kernels.ema, [xs], [20]);
      const wma = run(kernels.wma, [xs], [20]);
      const macd = run(kernels.macd, [xs], [12, 26]);
      for (let i = 19; i < 60; i++) {
        expect(sd[i]).toBe(0);
        expect(up[i]).toBe(lo[i]);
        expect(rel(up[i]!)).toBeLessThanOrEqual(1e-15);
        expect(rel(sma[i]!)).toBeLessThanOrEqual(1e-15);
        expect(rel(ema[i]!)).toBeLessThanOrEqual(1e-15);
        expect(rel(wma[i]!)).toBeLessThanOrEqual(1e-15);
      }
      for (let i = 14; i < 60; i++) {
        expect(rsi[i]).toBe(100);
        expect(atr[i]).toBe(0);
      }
      for (let i = 25; i < 60; i++) expect(Math.abs(macd[i]!)).toBeLessThanOrEqual(1e-13 * price);
      expect(run(kernels.roc, [xs], [5])[59]).toBe(0);
      expect(run(kernels.change, [xs], [5])[59]).toBe(0);
      expect(run(kernels.highest, [xs], [5])[59]).toBe(price);
      expect(run(kernels.lowest, [xs], [5])[59]).toBe(price);
    });
  }
});

describe("inputs that are indicators still warming up", () => {
  const close = FIXTURES[0]!.close;
  const rsi = run(kernels.rsi, [close], [14]);

  it("ema(rsi(14), 9) starts at bar 14 + 9 − 1 with the SMA of rsi[14..22], then matches EMA on the defined part", () => {
    const e = run(kernels.ema, [rsi], [9]);
    expect(firstDefined(rsi)).toBe(14);
    expect(firstDefined(e)).toBe(22);
    let sum = 0;
    for (let j = 14; j <= 22; j++) sum += rsi[j]!;
    expect(e[22]).toBe(sum / 9);
    const ref = alignEnd(EMA.calculate({ period: 9, values: list(rsi.subarray(14)) }), close.length);
    const { bad, compared } = disagreements(e, ref, 1e-9, 1);
    expect(bad).toEqual([]);
    expect(compared).toBe(close.length - 22);
  });

  it("rsi(rsi(14), 5) and macd_signal(rsi(14), 3, 6, 4) warm up from the first defined input", () => {
    expect(firstDefined(run(kernels.rsi, [rsi], [5]))).toBe(14 + 5);
    expect(firstDefined(run(kernels.macd_signal, [rsi], [3, 6, 4]))).toBe(14 + 5 + 3);
  });

  it("atr skips bars before high, low and close are all defined", () => {
    const { high, low } = FIXTURES[0]!;
    const h = high.slice();
    h.fill(NaN, 0, 4);
    const a = run(kernels.atr, [h, low, close], [5]);
    expect(firstDefined(a)).toBe(4 + 5);
  });
});

describe("crossover and crossunder", () => {
  it("fire on the bar a moves above (below) b; a tie before counts as not above (not below)", () => {
    const a = f64([1, 2, 2, 3, 1]);
    const b = f64([2, 2, 1, 1, 2]);
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 1, 0, 0]);
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 0, 0, 1]);
  });

  it("a touch and go (above, tie, above) is a crossover, as in TradingView", () => {
    const a = f64([3, 2, 3]);
    const b = f64([2, 2, 2]);
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 1]);
    expect(list(run(kernels.crossunder, [b, a], []))).toEqual([0, 0, 1]);
    // technicalindicators looks through the tie to the bar before (no cross) and fires on bar 0.
    expect(CrossUp.calculate({ lineA: list(a), lineB: list(b) })).toEqual([true, false, false]);
    expect(CrossDown.calculate({ lineA: list(b), lineB: list(a) })).toEqual([true, false, false]);
  });

  it("are 0, never NaN, at bar 0 and wherever an operand is undefined now or on the previous bar", () => {
    const a = f64([5, NaN, 5, 1, 5, 5]);
    const b = f64([1, 3, 3, 3, NaN, 3]);
    // Bar 0 has no previous bar even though a > b there.
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 0, 1, 0, 0]);
    const nan = new Float64Array(4).fill(NaN);
    expect(list(run(kernels.crossover, [nan, nan], []))).toEqual([0, 0, 0, 0]);
  });

  it("are 0 wherever an operand is ±Infinity now or on the previous bar (a division by zero compares false)", () => {
    // Without the finiteness check, -Infinity → 5 would be a crossover of 3 and 5 → -Infinity a crossunder.
    const a = f64([1, -Infinity, 5, 1, Infinity, 1, 5]);
    const b = f64([3, 3, 3, 3, 3, 3, 3]);
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 0, 1, 0, 0, 0]);
    const inf = f64([Infinity, Infinity, Infinity]);
    expect(list(run(kernels.crossover, [inf, f64([1, 2, 3])], []))).toEqual([0, 0, 0]);
  });
});

describe("accuracy", () => {
  // Prices near 100 with a spike up to 1e9 every 37 bars: a plain running sum keeps the
  // rounding error of the spike (~1e9 · 2⁻⁵³) after it leaves the window.
  const N = 300;
  const rand = prng(7);
  const spiky = new Float64Array(N);
  for (let i = 0; i < N; i++) spiky[i] = 100 + rand() * 10 + (i % 37 === 5 ? 1e9 * rand() : 0);

  /** The window mean in exact arithmetic: every double here is an integer multiple of 2⁻⁸⁰. */
  const SCALE = 2 ** 80;
  const exactMean = (xs: Float64Array, first: number, last: number): number => {
    let s = 0n;
    for (let j = first; j <= last; j++) s += BigInt(xs[j]! * SCALE);
    return Number(s) / SCALE / (last - first + 1);
  };

  it.each([5, 20, 50])("sma(%i) stays within 1e-12 of the exact window mean over spikes (a plain running sum does not)", (n) => {
    const ours = run(kernels.sma, [spiky], [n]);
    let worst = 0;
    let worstPlain = 0;
    let plain = 0;
    for (let i = 0; i < N; i++) {
      plain += spiky[i]!;
      if (i >= n) plain -= spiky[i - n]!;
      if (i < n - 1) continue;
      const exact = exactMean(spiky, i - n + 1, i);
      worst = Math.max(worst, Math.abs(ours[i]! - exact) / exact);
      worstPlain = Math.max(worstPlain, Math.abs(plain / n - exact) / exact);
    }
    expect(worst).toBeLessThanOrEqual(1e-12);
    if (n <= 20) expect(worstPlain).toBeGreaterThan(1e-11);
  });

  it("sma over a window holding ±Infinity is IEEE's answer and recovers once it leaves", () => {
    const xs = f64([1, Infinity, 1, 1, -Infinity, Infinity, 2, 4]);
    expect(list(run(kernels.sma, [xs], [2]))).toEqual([NaN, Infinity, Infinity, 1, -Infinity, NaN, Infinity, 3]);
  });

  it.each([20, 50])("stdev(%i) of prices near 1e9 equals stdev of the same prices shifted to 0 (E[x²] − E[x]² does not)", (n) => {
    const rand2 = prng(9);
    const big = new Float64Array(N);
    for (let i = 0; i < N; i++) big[i] = 1e9 + rand2() * 0.01;
    // Subtracting 1e9 from values within a factor of 2 of it is exact (Sterbenz).
    const shifted = big.map((v) => v - 1e9);
    const ours = run(kernels.stdev, [big], [n]);
    const reference = run(kernels.stdev, [shifted], [n]);
    let negativeTextbook = 0;
    for (let i = n - 1; i < N; i++) {
      expect(Math.abs(ours[i]! - reference[i]!) / reference[i]!).toBeLessThanOrEqual(1e-9);
      let s = 0;
      let s2 = 0;
      for (let j = i - n + 1; j <= i; j++) {
        s += big[j]!;
        s2 += big[j]! * big[j]!;
      }
      if (s2 / n - (s / n) ** 2 < 0) negativeTextbook++;
    }
    expect(negativeTextbook).toBeGreaterThan(0);
  });
});
