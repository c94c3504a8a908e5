/** `min`: the smaller of two series, elementwise (also checked beside `abs` in abs.test.ts). */
import { describe, expect, it } from "vitest";
import { MODULE, evaluate } from "../../kit/index.js";

describe("min", () => {
  it("worked example, NaN propagating", () => {
    expect(Array.from(evaluate(MODULE.min, [Float64Array.from([1, 5, NaN, -2, 3]), Float64Array.from([2, 4, 1, -3, NaN])], []))).toEqual(
      [1, 5, NaN, -2, 3].map((a, i) => Math.min(a, [2, 4, 1, -3, NaN][i]!)),
    );
    expect(evaluate(MODULE.min, [Float64Array.from([-0]), Float64Array.from([0])], [])[0]).toBe(Math.min(-0, 0));
  });
});
