/**
 * `crossunder`: the mirror of `crossover` (whose tests hold the shared cases against
 * technicalindicators CrossDown); here the worked examples of its own.
 */
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, f64, list, run } from "../series.js";

describe("crossunder", () => {
  it("fires on the bar a moves below b, a tie before counting as not below", () => {
    const a = f64([3, 2, 1, 1, 0, 2, 1]);
    const b = f64([2, 2, 2, 1, 1, 1, 1]);
    // bar 2: 1 < 2 after 2 >= 2 (tie); bar 4: 0 < 1 after 1 >= 1; bar 6: 1 < 1 is false.
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 1, 0, 1, 0, 0]);
  });

  it("is 0 at bar 0 and wherever an operand is NaN or infinite now or before", () => {
    expect(list(run(kernels.crossunder, [f64([1, NaN, 0, -1]), f64([0, 0, 0, 0])], []))).toEqual([0, 0, 0, 1]);
    expect(list(run(kernels.crossunder, [f64([1, -Infinity, -1]), f64([0, 0, 0])], []))).toEqual([0, 0, 0]);
  });
});
