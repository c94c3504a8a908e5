import { describe, expect, it } from "vitest";
import { bb_percent } from "../../../src/functions/builtins/bb_percent.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMean, windowSigma } from "../../kit/index.js";

describe("bb_percent", () => {
  it("is (src − lower)/(upper − lower) for the bands sma ± k·σ at every bar (Bollinger %b as TradingView plots it)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, k] of [[2, 2], [20, 2], [10, 1.5]] as const) {
        const expected = series(bars.close.length, n - 1, (i) => {
          const m = windowMean(bars.close, i, n);
          const s = windowSigma(bars.close, i, n);
          return s === 0 ? NaN : (bars.close[i]! - (m - k * s)) / (2 * k * s);
        });
        expectClose(evaluate(bb_percent, inputsOf(bb_percent, bars), [n, k]), expected, { rel: 1e-9, floor: 1 }, `bb_percent(${n}, ${k})`);
      }
  });

  it("works a small case by hand: 0 on the lower band, 1 on the upper, 0.5 on the middle", () => {
    // n = 3, k = 2 over 1, 2, 3: mean 2, σ = √(2/3): %b = (3 − 2 + 2σ)/(4σ) = 1/(4σ) + 1/2.
    const s = Math.sqrt(2 / 3);
    expect(evaluate(bb_percent, inputsOf(bb_percent, columns({ close: [1, 2, 3] })), [3, 2])[2]).toBeCloseTo(1 / (4 * s) + 0.5, 14);
    // 1, 3, 2 with k = 1: mean 2, the close on the middle → 0.5.
    expect(evaluate(bb_percent, inputsOf(bb_percent, columns({ close: [1, 3, 2] })), [3, 1])[2]).toBeCloseTo(0.5, 14);
    // n = 2, k = 1 over 1, 3: mean 2, σ = 1, close 3 on the upper band → 1.
    expect(evaluate(bb_percent, inputsOf(bb_percent, columns({ close: [1, 3] })), [2, 1])[1]).toBe(1);
  });

  it("is undefined where the bands meet (a flat window, n = 1, k = 0) and while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(bb_percent, inputsOf(bb_percent, flatBars(8, 50_000.07)), [5, 2])).every(Number.isNaN)).toBe(true);
    expect(Array.from(evaluate(bb_percent, inputsOf(bb_percent, PLAIN[0]!), [1, 2])).every(Number.isNaN)).toBe(true);
    expect(Array.from(evaluate(bb_percent, inputsOf(bb_percent, PLAIN[0]!), [20, 0])).every(Number.isNaN)).toBe(true);
    const out = evaluate(bb_percent, inputsOf(bb_percent, columnsWithNaN(PLAIN[0]!, [60])), [20, 2]);
    for (let i = 60; i < 80; i++) expect(out[i]).toBeNaN();
    expect(out[59]).not.toBeNaN();
    expect(out[80]).not.toBeNaN();
  });

  it("is first defined at bar n − 1, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [2, 20, 50]) checkContract(bb_percent, inputsOf(bb_percent, bars), [n, 2]);
    expect(evaluate(bb_percent, inputsOf(bb_percent, PLAIN[0]!, [emaOf(PLAIN[0]!.close, 5)]), [20, 2]).findIndex((v) => !Number.isNaN(v))).toBe(4 + 19);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("bb_percent(20, 2)", PLAIN[1]!)).toBe(evaluate(bb_percent, inputsOf(bb_percent, PLAIN[1]!), [20, 2]).at(-1));
  });
});
