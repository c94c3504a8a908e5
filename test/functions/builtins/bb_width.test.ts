import { describe, expect, it } from "vitest";
import { bb_width } from "../../../src/functions/builtins/bb_width.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMean, windowSigma } from "../../kit/index.js";

describe("bb_width", () => {
  it("is (upper − lower)/sma = 2k·σ/sma over n at every bar (TradingView ta.bbw, as a ratio)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, k] of [[2, 2], [20, 2], [10, 1.5]] as const) {
        const expected = series(bars.close.length, n - 1, (i) => (2 * k * windowSigma(bars.close, i, n)) / windowMean(bars.close, i, n));
        expectClose(evaluate(bb_width, inputsOf(bb_width, bars), [n, k]), expected, { rel: 1e-9, floor: 1e-12 }, `bb_width(${n}, ${k})`);
      }
  });

  it("works a small case by hand", () => {
    // n = 3, k = 2 over 1, 2, 3: mean 2, σ = √(2/3); width = 4√(2/3)/2 = 2√(2/3).
    expect(evaluate(bb_width, inputsOf(bb_width, columns({ close: [1, 2, 3] })), [3, 2])[2]).toBeCloseTo(2 * Math.sqrt(2 / 3), 14);
  });

  it("is exactly 0 on a flat window (even at large prices), undefined at a zero mean and while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(bb_width, inputsOf(bb_width, flatBars(8, 50_000.07)), [5, 2])).slice(4)).toEqual([0, 0, 0, 0]);
    expect(evaluate(bb_width, inputsOf(bb_width, columns({ close: [-1, 0, 1] })), [3, 2])[2]).toBeNaN();
    const out = evaluate(bb_width, inputsOf(bb_width, columnsWithNaN(PLAIN[0]!, [60])), [20, 2]);
    for (let i = 60; i < 80; i++) expect(out[i]).toBeNaN();
    expect(out[59]).not.toBeNaN();
    expect(out[80]).not.toBeNaN();
  });

  it("is first defined at bar n − 1, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 20, 50]) checkContract(bb_width, inputsOf(bb_width, bars), [n, 2]);
    expect(evaluate(bb_width, inputsOf(bb_width, PLAIN[0]!, [emaOf(PLAIN[0]!.close, 5)]), [20, 2]).findIndex((v) => !Number.isNaN(v))).toBe(4 + 19);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("bb_width(20, 2)", PLAIN[0]!)).toBe(evaluate(bb_width, inputsOf(bb_width, PLAIN[0]!), [20, 2]).at(-1));
  });
});
