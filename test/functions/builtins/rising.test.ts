import { describe, expect, it } from "vitest";
import { rising } from "../../../src/functions/builtins/rising.js";
import { BARS, PLAIN, checkContract, evaluate } from "../../kit/index.js";

const of = (xs: readonly number[]) => Float64Array.from(xs);

describe("rising", () => {
  it("is true when each of the last n bars closed strictly above the one before", () => {
    // n = 3 needs 4 values in strict ascent: bars 3 (1 < 2 < 3 < 4) and 4; the repeat at bar 5
    // breaks it; bars 6, 7 rebuild it and bar 8 is the third rise again.
    const x = of([1, 2, 3, 4, 5, 5, 6, 7, 8]);
    expect(Array.from(evaluate(rising, [x], [3]))).toEqual([0, 0, 0, 1, 1, 0, 0, 0, 1]);
    expect(Array.from(evaluate(rising, [x], [1]))).toEqual([0, 1, 1, 1, 1, 0, 1, 1, 1]);
  });

  it("is false through an undefined or infinite value, whose comparisons are false", () => {
    // NaN at bar 3 breaks every window that contains bar 3, including as the 'before' value.
    const x = of([1, 2, 3, NaN, 5, 6, 7, 8]);
    expect(Array.from(evaluate(rising, [x], [2]))).toEqual([0, 0, 1, 0, 0, 0, 1, 1]);
    const inf = of([1, 2, Infinity, 4, 5, 6]);
    expect(Array.from(evaluate(rising, [inf], [2]))).toEqual([0, 0, 0, 0, 0, 1]);
  });

  it("agrees with a direct check of n comparisons at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 3, 5]) {
        const ours = evaluate(rising, [bars.close], [n]);
        for (let i = 0; i < ours.length; i++) {
          let all = i >= n;
          for (let j = i - n + 1; all && j <= i; j++) all = bars.close[j]! > bars.close[j - 1]!;
          expect(ours[i], `rising(close, ${n}) #${i}`).toBe(all ? 1 : 0);
        }
      }
  });

  it("keeps the kernel contract (booleans, pieces, reads nothing before from − n)", () => {
    for (const bars of PLAIN) for (const n of [1, 3, 10]) checkContract(rising, [bars.close], [n]);
  });

  it("is false on a flat series (equal is not a rise)", () => {
    expect(Array.from(evaluate(rising, [new Float64Array(6).fill(2)], [1]))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
