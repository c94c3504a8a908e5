/**
 * The exact arithmetic the TA-Lib comparison falls back on (./exact.ts): doubles as exact
 * fractions, variance without cancellation, and the rules' answers on hand-made bars.
 */
import { describe, expect, it } from "vitest";
import { EXACT, exactVariance, frac, toNumber, type FixtureBars } from "./exact.js";

describe("exact arithmetic", () => {
  it("holds a double exactly and rounds a fraction back to the nearest double", () => {
    for (const x of [0.1, -2.5, 1e-4, 5e4 + 0.123, 2 ** -1074, 1.7976931348623157e308]) expect(toNumber(frac(x))).toBe(x);
    expect(toNumber({ n: 1n, d: 3n })).toBe(1 / 3);
  });

  it("gives the variance without the running-sum cancellation", () => {
    expect(toNumber(exactVariance([1, 2, 3, 4]))).toBe(1.25);
    // Around 1e4 with steps of 1e-8 the textbook E[x²] − E[x]² in doubles loses every digit.
    const xs = [1e4, 1e4 + 1e-8, 1e4 + 2e-8];
    const naive = xs.reduce((s, x) => s + x * x, 0) / 3 - (xs.reduce((s, x) => s + x, 0) / 3) ** 2;
    const exact = toNumber(exactVariance(xs));
    const d = xs.map((x) => x - xs[0]!);
    const mean = d.reduce((s, x) => s + x, 0) / 3;
    expect(exact).toBeCloseTo(d.reduce((s, x) => s + (x - mean) ** 2, 0) / 3, 25);
    expect(Math.abs(naive - exact)).toBeGreaterThan(exact);
    expect(toNumber(exactVariance([7, 7, 7]))).toBe(0);
  });
});

const bars = (close: number[], high = close, low = close): FixtureBars => ({
  time: close.map((_, i) => i),
  open: close,
  high,
  low,
  close,
  volume: close.map(() => 1),
});

describe("exact rules", () => {
  it("stdev of a flat window is 0, and linreg of a line is the line", () => {
    const b = bars([5, 5, 5, 5, 1, 2, 3, 4]);
    expect(EXACT.stdev!(b, { src: "close", n: 4 }, 3)).toBe(0);
    expect(EXACT.linreg!(b, { src: "close", n: 4 }, 7)).toBe(4);
    expect(EXACT.linreg_slope!(b, { src: "close", n: 4 }, 7)).toBe(1);
  });

  it("a correlation with a constant series is undefined; of a series with itself, 1", () => {
    const b = bars([1, 2, 3, 5]);
    expect(EXACT.correl!({ ...b, volume: [3, 3, 3, 3] }, { a: "close", b: "volume", n: 4 }, 3)).toBeNull();
    expect(EXACT.correl!(b, { a: "close", b: "open", n: 4 }, 3)).toBe(1);
  });

  it("%R and the stochastic are undefined over a flat range, and say nothing elsewhere", () => {
    const b = bars([3, 3, 3, 4], [3, 3, 3, 5], [3, 3, 3, 2]);
    expect(EXACT.willr!(b, { n: 3 }, 2)).toBeNull();
    expect(EXACT.willr!(b, { n: 3 }, 3)).toBeUndefined();
    expect(EXACT.stoch_k!(b, { k: 2, smooth: 2 }, 3)).toBeNull(); // the raw %K at bar 2 is undefined
  });

  it("NATR(1) is 100 · true range / close", () => {
    const b = bars([100, 110], [101, 112], [99, 104]);
    expect(EXACT.natr!(b, { n: 1 }, 1)).toBeCloseTo((100 * 12) / 110, 12);
    expect(EXACT.natr!(b, { n: 14 }, 1)).toBeUndefined();
  });
});
