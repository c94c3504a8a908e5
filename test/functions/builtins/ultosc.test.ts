import { describe, expect, it } from "vitest";
import { ultosc } from "../../../src/functions/builtins/ultosc.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series } from "../../kit/index.js";

/** Williams' definition, the shortest window weighing 4, the middle 2, the longest 1. */
function reference(c: { high: Float64Array; low: Float64Array; close: Float64Array }, lengths: readonly number[]): Float64Array {
  const [s, m, l] = [...lengths].sort((x, y) => x - y) as [number, number, number];
  const average = (i: number, p: number): number => {
    let bp = 0;
    let tr = 0;
    for (let j = i - p + 1; j <= i; j++) {
      const pc = c.close[j - 1]!;
      bp += c.close[j]! - Math.min(c.low[j]!, pc);
      tr += Math.max(c.high[j]!, pc) - Math.min(c.low[j]!, pc);
    }
    return bp / tr;
  };
  return series(c.close.length, l, (i) => (100 * (4 * average(i, s) + 2 * average(i, m) + average(i, l))) / 7);
}

describe("ultosc", () => {
  it("is Williams' weighted average of buying pressure over true range at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const lengths of [[7, 14, 28], [28, 14, 7], [2, 3, 4], [5, 5, 9], [1, 1, 1]])
        expectClose(evaluate(ultosc, inputsOf(ultosc, bars), lengths), reference(bars, lengths), { rel: 1e-9, floor: 1 }, `ultosc(${lengths})`);
  });

  it("weighs the shortest window 4 whatever the argument order", () => {
    const bars = PLAIN[0]!;
    expect(Array.from(evaluate(ultosc, inputsOf(ultosc, bars), [28, 7, 14]))).toEqual(
      Array.from(evaluate(ultosc, inputsOf(ultosc, bars), [7, 14, 28])),
    );
  });

  it("works a hand case", () => {
    // Lengths 1, 2, 3. Bars (h, l, c): (10, 8, 9), (12, 9, 11), (11, 9, 10), (13, 10, 12).
    // Bar 1: pc 9, BP 11 − 9 = 2, TR 12 − 9 = 3; bar 2: pc 11, BP 10 − 9 = 1, TR 11 − 9 = 2;
    // bar 3: pc 10, BP 12 − 10 = 2, TR 13 − 10 = 3. At bar 3: A1 = 2/3, A2 = 3/5, A3 = 5/8;
    // 100·(4·2/3 + 2·3/5 + 5/8)/7 = 64.1071428…
    const c = columns({ high: [10, 12, 11, 13], low: [8, 9, 9, 10], close: [9, 11, 10, 12] });
    const ours = evaluate(ultosc, inputsOf(ultosc, c), [1, 2, 3]);
    expect(Array.from(ours.subarray(0, 3)).every(Number.isNaN)).toBe(true);
    expect(ours[3]).toBeCloseTo((100 * (8 / 3 + 6 / 5 + 5 / 8)) / 7, 12);
  });

  it("is first defined at bar max(a, b, c) and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const lengths of [[7, 14, 28], [1, 2, 3], [40, 3, 3]]) checkContract(ultosc, inputsOf(ultosc, bars), lengths);
  });

  it("is undefined when a window has no true range (flat; TA-Lib drops the term) and while a NaN is in it", () => {
    expect(Array.from(evaluate(ultosc, inputsOf(ultosc, flatBars(40)), [7, 14, 28])).every(Number.isNaN)).toBe(true);
    const ours = evaluate(ultosc, inputsOf(ultosc, columnsWithNaN(PLAIN[0]!, [100])), [7, 14, 28]);
    for (let i = 100; i < 129; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[99]).not.toBeNaN();
    expect(ours[129]).not.toBeNaN();
  });
});
