import { describe, expect, it } from "vitest";
import { bop } from "../../../src/functions/builtins/bop.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf } from "../../kit/index.js";

describe("bop", () => {
  it("is (close − open)/(high − low) at every bar, 0 where high = low", () => {
    for (const bars of [...BARS, ...PLAIN]) {
      const expected = bars.close.map((c, i) => (bars.high[i] === bars.low[i] ? 0 : (c - bars.open[i]!) / (bars.high[i]! - bars.low[i]!)));
      expectClose(evaluate(bop, inputsOf(bop, bars), []), expected, { rel: 1e-15, floor: 1 }, "bop");
    }
  });

  it("works hand cases, including a sub-penny range TA-Lib would call 0", () => {
    const c = columns({ open: [10, 10, 5, 1e-9], high: [12, 11, 5, 3e-9], low: [9, 10, 5, 1e-9], close: [11.5, 10, 5, 2e-9] });
    const ours = evaluate(bop, inputsOf(bop, c), []);
    expect(Array.from(ours.subarray(0, 3))).toEqual([0.5, 0, 0]);
    expect(ours[3]).toBeCloseTo(0.5, 12);
  });

  it("is a bare name with lookback 1 and keeps the kernel contract", () => {
    expect(bop.params).toEqual([]);
    for (const bars of PLAIN) checkContract(bop, inputsOf(bop, bars), []);
  });

  it("is 0 on a flat series and undefined on a NaN bar only", () => {
    expect(Array.from(evaluate(bop, inputsOf(bop, flatBars(5)), []))).toEqual([0, 0, 0, 0, 0]);
    const ours = evaluate(bop, inputsOf(bop, columnsWithNaN(PLAIN[0]!, [10])), []);
    expect(ours[10]).toBeNaN();
    expect(ours[9]).not.toBeNaN();
    expect(ours[11]).not.toBeNaN();
  });
});
