import { describe, expect, it } from "vitest";
import { linreg } from "../../../src/functions/builtins/linreg.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, leastSquaresExact, series } from "../../kit/index.js";

describe("linreg", () => {
  it("is the least-squares line's value at the latest bar (TA-Lib LINEARREG), against exact arithmetic", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 3, 14, 30]) {
        const expected = series(bars.close.length, n - 1, (i) => leastSquaresExact(bars.close, i, n).value);
        expectClose(evaluate(linreg, inputsOf(linreg, bars), [n]), expected, { rel: 1e-12, floor: 1e-300 }, `linreg(${n})`);
      }
  });

  it("works a small case by hand, and n = 1 is the value itself", () => {
    // 1, 2, 4 at t = 0, 1, 2: t̄ = 1, ȳ = 7/3, slope = ((−1)(1 − 7/3) + (1)(4 − 7/3))/2 = 3/2,
    // value at t = 2: 7/3 + 3/2 = 23/6.
    expect(evaluate(linreg, inputsOf(linreg, columns({ close: [1, 2, 4] })), [3])[2]).toBeCloseTo(23 / 6, 14);
    expect(Array.from(evaluate(linreg, inputsOf(linreg, columns({ close: [5, 7] })), [1]))).toEqual([5, 7]);
    // A straight line is its own regression.
    const line = evaluate(linreg, inputsOf(linreg, columns({ close: [3, 5, 7, 9, 11] })), [4]);
    expect(line[3]).toBeCloseTo(9, 13);
    expect(line[4]).toBeCloseTo(11, 13);
  });

  it("is exactly the price on a flat window (even at large prices) and undefined while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(linreg, inputsOf(linreg, flatBars(8, 49_999.99)), [5])).slice(4)).toEqual(Array(4).fill(49_999.99));
    const out = evaluate(linreg, inputsOf(linreg, columnsWithNaN(PLAIN[0]!, [30])), [7]);
    for (let i = 30; i < 37; i++) expect(out[i]).toBeNaN();
    expect(out[29]).not.toBeNaN();
    expect(out[37]).not.toBeNaN();
  });

  it("is first defined at bar n − 1, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 2, 25]) checkContract(linreg, inputsOf(linreg, bars), [n]);
    const warming = emaOf(PLAIN[0]!.close, 3);
    expect(evaluate(linreg, inputsOf(linreg, PLAIN[0]!, [warming]), [10]).findIndex((v) => !Number.isNaN(v))).toBe(2 + 9);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("linreg(20)", PLAIN[2]!)).toBe(evaluate(linreg, inputsOf(linreg, PLAIN[2]!), [20]).at(-1));
  });
});
