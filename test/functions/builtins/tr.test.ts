import { describe, expect, it } from "vitest";
import { tr } from "../../../src/functions/builtins/tr.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, trOf } from "../../kit/index.js";

describe("tr", () => {
  it("is max(high − low, |high − close[1]|, |low − close[1]|) from bar 1 on (TA-Lib TRANGE)", () => {
    for (const bars of [...BARS, ...PLAIN]) expectClose(evaluate(tr, inputsOf(tr, bars), []), trOf(bars), { rel: 0, floor: 1e-300 }, "tr");
  });

  it("works the three cases by hand: an inside bar, a gap up and a gap down", () => {
    // Bar 1: range 2 inside the previous close 10 → 2. Bar 2 gaps up from 11 to 14..15 → 15 − 11 = 4.
    // Bar 3 gaps down from 14.5 to 12..13 → 14.5 − 12 = 2.5.
    const c = columns({ high: [11, 12, 15, 13], low: [9, 10, 14, 12], close: [10, 11, 14.5, 12.5] });
    expect(Array.from(evaluate(tr, inputsOf(tr, c), []))).toEqual([NaN, 2, 4, 2.5]);
  });

  it("is first defined at bar 1 (L = 2), keeps the kernel contract, is 0 when flat, undefined next to a NaN bar", () => {
    for (const bars of PLAIN) checkContract(tr, inputsOf(tr, bars), []);
    expect(Array.from(evaluate(tr, inputsOf(tr, flatBars(4)), []))).toEqual([NaN, 0, 0, 0]);
    const out = evaluate(tr, inputsOf(tr, columnsWithNaN(PLAIN[0]!, [30])), []);
    expect(out[30]).toBeNaN();
    expect(out[31]).toBeNaN();
    expect(out[29]).not.toBeNaN();
    expect(out[32]).not.toBeNaN();
  });

  it("is written bare and gives the same value through compile().run", () => {
    expect(tr.params).toEqual([]);
    expect(latestThroughRun("tr", PLAIN[1]!)).toBe(evaluate(tr, inputsOf(tr, PLAIN[1]!), []).at(-1));
  });
});
