import { describe, expect, it } from "vitest";
import { obv } from "../../../src/functions/builtins/obv.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("obv", () => {
  it("adds the volume on an up close, subtracts it on a down close, from the first bar's volume (TA-Lib OBV)", () => {
    for (const bars of [...BARS, ...PLAIN]) {
      const expected = new Float64Array(bars.close.length);
      expected[0] = bars.volume[0]!;
      for (let i = 1; i < expected.length; i++) {
        const d = bars.close[i]! - bars.close[i - 1]!;
        expected[i] = expected[i - 1]! + (d > 0 ? bars.volume[i]! : d < 0 ? -bars.volume[i]! : 0);
      }
      expectClose(evaluate(obv, inputsOf(obv, bars), []), expected, { rel: 0, floor: 1e-300 }, "obv");
    }
  });

  it("works a small case by hand (Granville's rule)", () => {
    // Closes 10, 11, 11, 9, 12 with volumes 100..500: 100, +200, unchanged, −400, +500.
    const c = columns({ close: [10, 11, 11, 9, 12], volume: [100, 200, 300, 400, 500] });
    expect(Array.from(evaluate(obv, inputsOf(obv, c), []))).toEqual([100, 300, 300, -100, 400]);
  });

  it("is defined from bar 0 (L = 1), keeps the kernel contract, stays put on a flat market", () => {
    for (const bars of PLAIN) checkContract(obv, inputsOf(obv, bars), []);
    expect(Array.from(evaluate(obv, inputsOf(obv, flatBars(4)), []))).toEqual([1000, 1000, 1000, 1000]);
  });

  it("starts at the first bar with close and volume, and is NaN from a later NaN bar on (the total is unknowable)", () => {
    const c = columns({ close: [NaN, 10, 11, 12, 11], volume: [5, 100, 200, 300, 400] });
    expect(Array.from(evaluate(obv, inputsOf(obv, c), []))).toEqual([NaN, 100, 300, 600, 200]);
    const out = evaluate(obv, inputsOf(obv, columnsWithNaN(PLAIN[0]!, [100])), []);
    expect(out[99]).not.toBeNaN();
    for (let i = 100; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("is written bare and gives the same value through compile().run", () => {
    expect(obv.params).toEqual([]);
    expect(latestThroughRun("obv", PLAIN[0]!)).toBe(evaluate(obv, inputsOf(obv, PLAIN[0]!), []).at(-1));
  });
});
