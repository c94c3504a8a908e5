/**
 * `lowest`: reference values against `technicalindicators` Lowest are checked beside `highest`
 * (test/functions/builtins/highest.test.ts); here the worked examples.
 */
import { describe, expect, it } from "vitest";
import { BARS, MODULE, evaluate } from "../../kit/index.js";

describe("lowest", () => {
  it("includes the current bar: [3, 1, 2, 5, 4, 0] over 3 bars", () => {
    expect(Array.from(evaluate(MODULE.lowest, [Float64Array.from([3, 1, 2, 5, 4, 0])], [3]))).toEqual([NaN, NaN, 1, 1, 2, 0]);
  });

  it("is a window minimum at every bar of every fixture", () => {
    for (const { low } of BARS) {
      const out = evaluate(MODULE.lowest, [low], [7]);
      for (let i = 6; i < low.length; i++) expect(out[i]).toBe(Math.min(...low.subarray(i - 6, i + 1)));
    }
  });

  it("a NaN in the window makes it undefined", () => {
    expect(Array.from(evaluate(MODULE.lowest, [Float64Array.from([1, NaN, 3, 4, 5])], [2]))).toEqual([NaN, NaN, NaN, 3, 4]);
  });
});
