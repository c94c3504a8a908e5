import { describe, expect, it } from "vitest";
import { cross } from "../../../src/functions/builtins/cross.js";
import { crossover } from "../../../src/functions/builtins/crossover.js";
import { crossunder } from "../../../src/functions/builtins/crossunder.js";
import { BARS, PLAIN, checkContract, evaluate } from "../../kit/index.js";

const of = (xs: readonly number[]) => Float64Array.from(xs);

describe("cross", () => {
  it("is true on the bar a crosses b in either direction", () => {
    const a = of([1, 3, 3, 1, 2, 2, 3]);
    const b = of([2, 2, 3, 2, 2, 2, 2]);
    // Bar 1 up-cross; bar 2 touch (not a cross); bar 3 leaves from a = b downwards: a cross
    // (a < b now, a >= b before); bar 4 touch; bar 6 leaves upward from a touch: a cross.
    expect(Array.from(evaluate(cross, [a, b], []))).toEqual([0, 1, 0, 1, 0, 0, 1]);
  });

  it("is crossover or crossunder at every bar", () => {
    for (const bars of [...BARS, ...PLAIN]) {
      const ours = evaluate(cross, [bars.close, bars.open], []);
      const up = evaluate(crossover, [bars.close, bars.open], []);
      const down = evaluate(crossunder, [bars.close, bars.open], []);
      expect(Array.from(ours)).toEqual(Array.from(up, (u, i) => (u || down[i] ? 1 : 0)));
    }
  });

  it("is false where either side is undefined or infinite, now or on the bar before", () => {
    const a = of([1, 3, NaN, 1, 3, Infinity, 1]);
    const b = of([2, 2, 2, 2, 2, 2, 2]);
    expect(Array.from(evaluate(cross, [a, b], []))).toEqual([0, 1, 0, 0, 1, 0, 0]);
  });

  it("keeps the kernel contract and never fires on flat series", () => {
    for (const bars of PLAIN) checkContract(cross, [bars.close, bars.open], []);
    expect(Array.from(evaluate(cross, [new Float64Array(4).fill(1), new Float64Array(4).fill(1)], []))).toEqual([0, 0, 0, 0]);
  });
});
