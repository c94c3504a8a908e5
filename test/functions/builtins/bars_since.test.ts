import { describe, expect, it } from "vitest";
import { bars_since } from "../../../src/functions/builtins/bars_since.js";
import { checkContract, evaluate, randomBooleans } from "../../kit/index.js";

const of = (xs: readonly number[]) => Float64Array.from(xs);

describe("bars_since", () => {
  it("is the bars since the condition last held within the last n bars, 0 when it holds now", () => {
    const cond = of([0, 1, 0, 0, 0, 0, 1, 1, 0]);
    // n = 4: bar 3 → 2; bar 4 → 3; bar 5 → the event at bar 1 is 4 bars back, outside: undefined.
    expect(Array.from(evaluate(bars_since, [cond], [4]))).toEqual([NaN, NaN, NaN, 2, 3, NaN, 0, 0, 1]);
  });

  it("is undefined when the event never happened in the window, so '<= k' is false", () => {
    const ours = evaluate(bars_since, [new Float64Array(10)], [5]);
    expect(Array.from(ours).every(Number.isNaN)).toBe(true);
    expect(ours[9]! <= 4).toBe(false);
  });

  it("treats bars where the condition's inputs were undefined as false", () => {
    // `bars_since(crossover(...), 3)` while the averages do not exist yet: those bars are 0.
    expect(Array.from(evaluate(bars_since, [of([0, 0, 0, 1, 0])], [3]))).toEqual([NaN, NaN, NaN, 0, 1]);
  });

  it("agrees with a direct backward scan at every bar and keeps the kernel contract", () => {
    for (const seed of [4, 5, 6]) {
      const cond = randomBooleans(seed, 300, 0.1);
      for (const n of [1, 5, 20]) {
        const ours = evaluate(bars_since, [cond], [n]);
        for (let i = n - 1; i < cond.length; i++) {
          let age = NaN;
          for (let j = i; j > i - n; j--)
            if (cond[j] === 1) {
              age = i - j;
              break;
            }
          if (Number.isNaN(age)) expect(ours[i]).toBeNaN();
          else expect(ours[i]).toBe(age);
        }
        // Defined from bar n − 1 on only where the event happened in the window.
        checkContract(bars_since, [cond], [n], { sparse: true });
        checkContract(bars_since, [new Float64Array(300).fill(1)], [n]);
      }
    }
  });
});
