/** `max`: the larger of two series, elementwise (also checked beside `abs` in abs.test.ts). */
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, f64, list, run } from "../series.js";

describe("max", () => {
  it("worked example, NaN propagating", () => {
    expect(list(run(kernels.max, [f64([1, 5, NaN, -2, 3]), f64([2, 4, 1, -3, NaN])], []))).toEqual(
      [1, 5, NaN, -2, 3].map((a, i) => Math.max(a, [2, 4, 1, -3, NaN][i]!)),
    );
    expect(run(kernels.max, [f64([-0]), f64([0])], [])[0]).toBe(Math.max(-0, 0));
  });
});
