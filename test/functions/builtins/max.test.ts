/** `max`: the larger of two series, elementwise (also checked beside `abs` in abs.test.ts). */
import { describe, expect, it } from "vitest";
import { MODULE, evaluate } from "../../kit/index.js";

describe("max", () => {
  it("worked example, NaN propagating", () => {
    expect(Array.from(evaluate(MODULE.max, [Float64Array.from([1, 5, NaN, -2, 3]), Float64Array.from([2, 4, 1, -3, NaN])], []))).toEqual(
      [1, 5, NaN, -2, 3].map((a, i) => Math.max(a, [2, 4, 1, -3, NaN][i]!)),
    );
    expect(evaluate(MODULE.max, [Float64Array.from([-0]), Float64Array.from([0])], [])[0]).toBe(Math.max(-0, 0));
  });
});
