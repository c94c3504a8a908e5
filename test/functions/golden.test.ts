/**
 * Edge cases across several v1 built-ins: flat series (RSI 100, σ 0, bands collapsed) and inputs
 * that are indicators still warming up. Each function's own worked examples and reference values
 * are in test/functions/builtins/<name>.test.ts.
 */
import { EMA } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, alignEnd, disagreements, firstDefined, run } from "./series.js";

const list = (xs: Float64Array): number[] => Array.from(xs);

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
