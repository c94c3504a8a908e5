import { describe, expect, it } from "vitest";
import { count } from "../../../src/functions/builtins/count.js";
import { PLAIN, checkContract, evaluate, randomBooleans } from "../../kit/index.js";

const of = (xs: readonly number[]) => Float64Array.from(xs);

describe("count", () => {
  it("counts the bars of the last n (current included) on which the condition held", () => {
    const cond = of([1, 0, 1, 1, 0, 0, 1]);
    expect(Array.from(evaluate(count, [cond], [3]))).toEqual([NaN, NaN, 2, 2, 2, 1, 1]);
    expect(Array.from(evaluate(count, [cond], [1]))).toEqual([1, 0, 1, 1, 0, 0, 1]);
  });

  it("counts a bar where the condition's inputs were undefined as false", () => {
    // `count(rsi(14) < 30, 3)` while the RSI does not exist yet: the comparison is false (0).
    const rsiBelow30 = of([0, 0, 0, 1, 1]);
    expect(Array.from(evaluate(count, [rsiBelow30], [3]))).toEqual([NaN, NaN, 0, 1, 2]);
  });

  it("agrees with a direct count at every bar and keeps the kernel contract", () => {
    for (const seed of [1, 2, 3]) {
      const cond = randomBooleans(seed, 300, 0.3);
      for (const n of [1, 5, 10, 50]) {
        const ours = evaluate(count, [cond], [n]);
        for (let i = n - 1; i < cond.length; i++) {
          let c = 0;
          for (let j = i - n + 1; j <= i; j++) c += cond[j]!;
          expect(ours[i]).toBe(c);
        }
        checkContract(count, [cond], [n]);
      }
    }
  });

  it("is 0 on a condition that never holds (a flat market for a 'rose' condition)", () => {
    expect(Array.from(evaluate(count, [new Float64Array(5)], [2]))).toEqual([NaN, 0, 0, 0, 0]);
    expect(PLAIN.length).toBeGreaterThan(0);
  });
});
