import { describe, expect, it } from "vitest";
import { falling } from "../../../src/functions/builtins/falling.js";
import { BARS, PLAIN, checkContract, evaluate } from "../../kit/index.js";

const of = (xs: readonly number[]) => Float64Array.from(xs);

describe("falling", () => {
  it("is true when each of the last n bars closed strictly below the one before", () => {
    const x = of([9, 8, 7, 6, 6, 5, 4, 3]);
    expect(Array.from(evaluate(falling, [x], [3]))).toEqual([0, 0, 0, 1, 0, 0, 0, 1]);
  });

  it("is false through an undefined value in the window", () => {
    const x = of([9, 8, NaN, 6, 5, 4]);
    expect(Array.from(evaluate(falling, [x], [2]))).toEqual([0, 0, 0, 0, 0, 1]);
  });

  it("agrees with a direct check of n comparisons at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 4]) {
        const ours = evaluate(falling, [bars.close], [n]);
        for (let i = 0; i < ours.length; i++) {
          let all = i >= n;
          for (let j = i - n + 1; all && j <= i; j++) all = bars.close[j]! < bars.close[j - 1]!;
          expect(ours[i], `falling(close, ${n}) #${i}`).toBe(all ? 1 : 0);
        }
      }
  });

  it("keeps the kernel contract and is false on a flat series", () => {
    for (const bars of PLAIN) for (const n of [1, 3, 10]) checkContract(falling, [bars.close], [n]);
    expect(Array.from(evaluate(falling, [new Float64Array(5).fill(1)], [1]))).toEqual([0, 0, 0, 0, 0]);
  });
});
