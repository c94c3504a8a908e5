import { describe, expect, it } from "vitest";
import { linreg_slope } from "../../../src/functions/builtins/linreg_slope.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, leastSquaresExact, series } from "../../kit/index.js";

describe("linreg_slope", () => {
  it("is the least-squares line's slope per bar (TA-Lib LINEARREG_SLOPE), against exact arithmetic", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 3, 14, 30]) {
        const expected = series(bars.close.length, n - 1, (i) => leastSquaresExact(bars.close, i, n).slope);
        // A slope near 0 is a difference of nearly equal prices: compare relative to the price level.
        const level = bars.close.reduce((a, b) => a + b, 0) / bars.close.length;
        expectClose(evaluate(linreg_slope, inputsOf(linreg_slope, bars), [n]), expected, { rel: 1e-11, floor: level * 1e-3 }, `linreg_slope(${n})`);
      }
  });

  it("works a small case by hand, and is 0 on one value (the flat line through it)", () => {
    // 1, 2, 4: slope 3/2 (see linreg); a straight line 3, 5, 7, 9 has slope 2.
    expect(evaluate(linreg_slope, inputsOf(linreg_slope, columns({ close: [1, 2, 4] })), [3])[2]).toBeCloseTo(1.5, 14);
    expect(evaluate(linreg_slope, inputsOf(linreg_slope, columns({ close: [3, 5, 7, 9] })), [4])[3]).toBeCloseTo(2, 14);
    expect(Array.from(evaluate(linreg_slope, inputsOf(linreg_slope, columns({ close: [5, 7] })), [1]))).toEqual([0, 0]);
  });

  it("is exactly 0 on a flat window and undefined while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(linreg_slope, inputsOf(linreg_slope, flatBars(8, 50_000.01)), [5])).slice(4)).toEqual([0, 0, 0, 0]);
    const out = evaluate(linreg_slope, inputsOf(linreg_slope, columnsWithNaN(PLAIN[1]!, [30])), [7]);
    for (let i = 30; i < 37; i++) expect(out[i]).toBeNaN();
    expect(out[37]).not.toBeNaN();
  });

  it("is first defined at bar n − 1, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 2, 25]) checkContract(linreg_slope, inputsOf(linreg_slope, bars), [n]);
    const warming = emaOf(PLAIN[0]!.close, 3);
    expect(evaluate(linreg_slope, inputsOf(linreg_slope, PLAIN[0]!, [warming]), [10]).findIndex((v) => !Number.isNaN(v))).toBe(11);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("linreg_slope(20)", PLAIN[0]!)).toBe(evaluate(linreg_slope, inputsOf(linreg_slope, PLAIN[0]!), [20]).at(-1));
  });
});
