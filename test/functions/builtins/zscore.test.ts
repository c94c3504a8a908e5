import { describe, expect, it } from "vitest";
import { zscore } from "../../../src/functions/builtins/zscore.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMean, windowSigma } from "../../kit/index.js";

describe("zscore", () => {
  it("is (src − sma(src, n))/stdev(src, n) with the population σ at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 20, 50]) {
        const expected = series(bars.close.length, n - 1, (i) => {
          const s = windowSigma(bars.close, i, n);
          return s === 0 ? NaN : (bars.close[i]! - windowMean(bars.close, i, n)) / s;
        });
        expectClose(evaluate(zscore, inputsOf(zscore, bars), [n]), expected, { rel: 1e-9, floor: 1 }, `zscore(${n})`);
      }
  });

  it("works a small case by hand (TradingView's ta.stdev is the population σ, so 1, 2, 3 gives √(3/2))", () => {
    // Mean 2, σ = √(2/3): (3 − 2)/√(2/3) = √(3/2). n = 2 over any two distinct values is ±1.
    expect(evaluate(zscore, inputsOf(zscore, columns({ close: [1, 2, 3] })), [3])[2]).toBeCloseTo(Math.sqrt(1.5), 14);
    expect(Array.from(evaluate(zscore, inputsOf(zscore, columns({ close: [5, 9, 2] })), [2]))).toEqual([NaN, 1, -1]);
  });

  it("is undefined on a flat window (even at large prices), for n = 1, and while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(zscore, inputsOf(zscore, flatBars(6, 50_000.07)), [3])).every(Number.isNaN)).toBe(true);
    expect(Array.from(evaluate(zscore, inputsOf(zscore, PLAIN[0]!), [1])).every(Number.isNaN)).toBe(true);
    const out = evaluate(zscore, inputsOf(zscore, columnsWithNaN(PLAIN[0]!, [60])), [20]);
    for (let i = 60; i < 80; i++) expect(out[i]).toBeNaN();
    expect(out[59]).not.toBeNaN();
    expect(out[80]).not.toBeNaN();
  });

  it("is first defined at bar n − 1, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [2, 20, 60]) checkContract(zscore, inputsOf(zscore, bars), [n]);
    expect(evaluate(zscore, inputsOf(zscore, PLAIN[0]!, [emaOf(PLAIN[0]!.close, 5)]), [20]).findIndex((v) => !Number.isNaN(v))).toBe(23);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("zscore(20)", PLAIN[0]!)).toBe(evaluate(zscore, inputsOf(zscore, PLAIN[0]!), [20]).at(-1));
  });
});
