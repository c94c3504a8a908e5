/**
 * Edge cases across several v1 built-ins: flat series (RSI 100, σ 0, bands collapsed) and inputs
 * that are indicators still warming up. Each function's own worked examples and reference values
 * are in test/functions/builtins/<name>.test.ts.
 */
import { EMA } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, MODULE, alignEnd, disagreements, evaluate, firstDefined } from "../kit/index.js";

describe("flat series", () => {
  for (const price of [101.37, 0.1, 48_213.77]) {
    it(`at ${price}: σ is exactly 0, bands collapse, RSI is 100, ATR 0, averages equal the price`, () => {
      const xs = new Float64Array(60).fill(price);
      const rel = (v: number): number => Math.abs(v - price) / price;
      const sd = evaluate(MODULE.stdev, [xs], [20]);
      const up = evaluate(MODULE.bb_upper, [xs], [20, 2]);
      const lo = evaluate(MODULE.bb_lower, [xs], [20, 2]);
      const rsi = evaluate(MODULE.rsi, [xs], [14]);
      const atr = evaluate(MODULE.atr, [xs, xs, xs], [14]);
      const sma = evaluate(MODULE.sma, [xs], [20]);
      const ema = evaluate(MODULE.ema, [xs], [20]);
      const wma = evaluate(MODULE.wma, [xs], [20]);
      const macd = evaluate(MODULE.macd, [xs], [12, 26]);
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
      expect(evaluate(MODULE.roc, [xs], [5])[59]).toBe(0);
      expect(evaluate(MODULE.change, [xs], [5])[59]).toBe(0);
      expect(evaluate(MODULE.highest, [xs], [5])[59]).toBe(price);
      expect(evaluate(MODULE.lowest, [xs], [5])[59]).toBe(price);
    });
  }
});

describe("inputs that are indicators still warming up", () => {
  const close = BARS[0]!.close;
  const rsi = evaluate(MODULE.rsi, [close], [14]);

  it("ema(rsi(14), 9) starts at bar 14 + 9 − 1 with the SMA of rsi[14..22], then matches EMA on the defined part", () => {
    const e = evaluate(MODULE.ema, [rsi], [9]);
    expect(firstDefined(rsi)).toBe(14);
    expect(firstDefined(e)).toBe(22);
    let sum = 0;
    for (let j = 14; j <= 22; j++) sum += rsi[j]!;
    expect(e[22]).toBe(sum / 9);
    const ref = alignEnd(EMA.calculate({ period: 9, values: Array.from(rsi.subarray(14)) }), close.length);
    const { bad, compared } = disagreements(e, ref, { rel: 1e-9, floor: 1 });
    expect(bad).toEqual([]);
    expect(compared).toBe(close.length - 22);
  });

  it("rsi(rsi(14), 5) and macd_signal(rsi(14), 3, 6, 4) warm up from the first defined input", () => {
    expect(firstDefined(evaluate(MODULE.rsi, [rsi], [5]))).toBe(14 + 5);
    expect(firstDefined(evaluate(MODULE.macd_signal, [rsi], [3, 6, 4]))).toBe(14 + 5 + 3);
  });

  it("atr skips bars before high, low and close are all defined", () => {
    const { high, low } = BARS[0]!;
    const h = high.slice();
    h.fill(NaN, 0, 4);
    const a = evaluate(MODULE.atr, [h, low, close], [5]);
    expect(firstDefined(a)).toBe(4 + 5);
  });
});
