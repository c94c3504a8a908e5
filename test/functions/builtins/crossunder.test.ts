/**
 * `crossunder`: the mirror of `crossover` (whose tests hold the shared cases against
 * technicalindicators CrossDown); here the worked examples of its own.
 */
import { describe, expect, it } from "vitest";
import { MODULE, evaluate } from "../../kit/index.js";

describe("crossunder", () => {
  it("fires on the bar a moves below b, a tie before counting as not below", () => {
    const a = Float64Array.from([3, 2, 1, 1, 0, 2, 1]);
    const b = Float64Array.from([2, 2, 2, 1, 1, 1, 1]);
    // bar 2: 1 < 2 after 2 >= 2 (tie); bar 4: 0 < 1 after 1 >= 1; bar 6: 1 < 1 is false.
    expect(Array.from(evaluate(MODULE.crossunder, [a, b], []))).toEqual([0, 0, 1, 0, 1, 0, 0]);
  });

  it("is 0 at bar 0 and wherever an operand is NaN or infinite now or before", () => {
    expect(Array.from(evaluate(MODULE.crossunder, [Float64Array.from([1, NaN, 0, -1]), Float64Array.from([0, 0, 0, 0])], []))).toEqual([0, 0, 0, 1]);
    expect(Array.from(evaluate(MODULE.crossunder, [Float64Array.from([1, -Infinity, -1]), Float64Array.from([0, 0, 0])], []))).toEqual([0, 0, 0]);
  });
});
