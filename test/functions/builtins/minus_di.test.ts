import { describe, expect, it } from "vitest";
import { minus_di } from "../../../src/functions/builtins/minus_di.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, wilder } from "../../kit/index.js";

describe("minus_di", () => {
  it("is 100·S(−DM)/S(TR) with Wilder's running sums at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14]) expectClose(evaluate(minus_di, inputsOf(minus_di, bars), [n]), wilder(bars, n).minus, { rel: 1e-9, floor: 1 }, `minus_di(${n})`);
  });

  it("is a percentage for n = 1 too (the bar's own DM over its true range), where TA-Lib returns a fraction", () => {
    // Bar 1: up 2, down −1 → +DM 2, TR 3; bar 2: up −3, down 3 → −DM 3, TR 5.
    const c = columns({ high: [10, 12, 9], low: [8, 9, 6], close: [9, 11, 7] });
    const ours = Array.from(evaluate(minus_di, inputsOf(minus_di, c), [1]));
    expect(ours[0]).toBeNaN();
    expectClose(Float64Array.from(ours.slice(1)), [0, (100 * 3) / 5], { rel: 1e-9, floor: 1 }, "n = 1");
  });

  it("is first defined at bar n, keeps the kernel contract, and is undefined on a flat series", () => {
    for (const bars of PLAIN) for (const n of [1, 14]) checkContract(minus_di, inputsOf(minus_di, bars), [n]);
    expect(Array.from(evaluate(minus_di, inputsOf(minus_di, flatBars(30)), [5])).every(Number.isNaN)).toBe(true);
  });

  it("is poisoned from a NaN bar on (a recursive sum cannot skip it)", () => {
    const ours = evaluate(minus_di, inputsOf(minus_di, columnsWithNaN(PLAIN[0]!, [70])), [14]);
    expect(ours[69]).not.toBeNaN();
    expect(Array.from(ours.subarray(70)).every(Number.isNaN)).toBe(true);
  });
});
