import { describe, expect, it } from "vitest";
import { ad } from "../../../src/functions/builtins/ad.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("ad", () => {
  it("accumulates volume·((close − low) − (high − close))/(high − low), bars without range adding 0 (TA-Lib AD)", () => {
    for (const bars of [...BARS, ...PLAIN]) {
      const expected = new Float64Array(bars.close.length);
      let total = 0;
      for (let i = 0; i < expected.length; i++) {
        const h = bars.high[i]!;
        const l = bars.low[i]!;
        const c = bars.close[i]!;
        if (h > l) total += (((c - l) - (h - c)) / (h - l)) * bars.volume[i]!;
        expected[i] = total;
      }
      expectClose(evaluate(ad, inputsOf(ad, bars), []), expected, { rel: 1e-12, floor: 1 }, "ad");
    }
  });

  it("works a small case by hand (Chaikin's close location value times volume)", () => {
    // Close 9.5 in 8..10: CLV (1.5 − 0.5)/2 = 0.5 → +50. A bar with high = low adds 0. Close on
    // the low of 10..12: CLV −1 → −200.
    const c = columns({ high: [10, 10, 12], low: [8, 10, 10], close: [9.5, 10, 10], volume: [100, 100, 200] });
    expect(Array.from(evaluate(ad, inputsOf(ad, c), []))).toEqual([50, 50, -150]);
  });

  it("is defined from bar 0 (L = 1), keeps the kernel contract, stays at 0 on a flat market", () => {
    for (const bars of PLAIN) checkContract(ad, inputsOf(ad, bars), []);
    expect(Array.from(evaluate(ad, inputsOf(ad, flatBars(3)), []))).toEqual([0, 0, 0]);
  });

  it("starts at the first complete bar and is NaN from a later NaN bar on, even one without range", () => {
    const c = columns({ high: [NaN, 10, 10, 10], low: [NaN, 8, 10, 8], close: [NaN, 10, 10, 8], volume: [1, 10, NaN, 10] });
    expect(Array.from(evaluate(ad, inputsOf(ad, c), []))).toEqual([NaN, 10, NaN, NaN]);
    const out = evaluate(ad, inputsOf(ad, columnsWithNaN(PLAIN[0]!, [100])), []);
    expect(out[99]).not.toBeNaN();
    for (let i = 100; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("is written bare and gives the same value through compile().run", () => {
    expect(latestThroughRun("ad", PLAIN[1]!)).toBe(evaluate(ad, inputsOf(ad, PLAIN[1]!), []).at(-1));
  });
});
