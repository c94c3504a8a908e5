import { describe, expect, it } from "vitest";
import { willr } from "../../../src/functions/builtins/willr.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series, windowMax, windowMin } from "../../kit/index.js";

describe("willr", () => {
  it("is −100·(highest high − close)/(highest high − lowest low) over n bars at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14, 25]) {
        const expected = series(bars.close.length, n - 1, (i) => {
          const hh = windowMax(bars.high, i, n);
          const ll = windowMin(bars.low, i, n);
          return hh === ll ? NaN : (-100 * (hh - bars.close[i]!)) / (hh - ll);
        });
        expectClose(evaluate(willr, inputsOf(willr, bars), [n]), expected, { rel: 1e-9, floor: 1 }, `willr(${n})`);
      }
  });

  it("works a small case by hand (Achelis' definition: %R = (highest − close)/(highest − lowest), negated)", () => {
    // n = 3. Bar 2: range [8, 12], close 11 → −25; bar 3: [9, 13], close 10 → −75;
    // bar 4: [9, 13], close 13 → 0 (close at the high); bar 5: [10, 14], close 10 → −100.
    const c = columns({ high: [10, 12, 11, 13, 12, 14], low: [8, 9, 9, 10, 11, 12], close: [9, 11, 11, 10, 13, 10] });
    expect(Array.from(evaluate(willr, inputsOf(willr, c), [3]))).toEqual([NaN, NaN, -25, -75, -0, -100]);
  });

  it("is first defined at bar n − 1 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 14, 50]) checkContract(willr, inputsOf(willr, bars), [n]);
  });

  it("is undefined on a zero range (TA-Lib writes 0) and while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(willr, inputsOf(willr, flatBars(20)), [5])).every(Number.isNaN)).toBe(true);
    const ours = evaluate(willr, inputsOf(willr, columnsWithNaN(PLAIN[0]!, [50])), [14]);
    for (let i = 50; i < 64; i++) expect(ours[i]).toBeNaN();
    expect(ours[49]).not.toBeNaN();
    expect(ours[64]).not.toBeNaN();
  });
});
