import { describe, expect, it } from "vitest";
import { stoch_d } from "../../../src/functions/builtins/stoch_d.js";
import { stoch_k } from "../../../src/functions/builtins/stoch_k.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series, windowMean } from "../../kit/index.js";

describe("stoch_d", () => {
  it("is the SMA(d) of stoch_k(k, smooth) at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [k, smooth, d] of [[14, 3, 3], [5, 1, 1], [9, 4, 2]] as const) {
        const slowK = evaluate(stoch_k, inputsOf(stoch_k, bars), [k, smooth]);
        const expected = series(slowK.length, k + smooth + d - 3, (i) => windowMean(slowK, i, d));
        const ours = evaluate(stoch_d, inputsOf(stoch_d, bars), [k, smooth, d]);
        expect(expectClose(ours, expected, { rel: 1e-12, floor: 1 }, `stoch_d(${k}, ${smooth}, ${d})`)).toBeGreaterThan(200);
      }
  });

  it("works a small case by hand", () => {
    // Raw %K (k = 3) on bars 2..5: 75, 25, 100, 50; smooth = 1 keeps them; d = 2 averages pairs:
    // 50, 62.5, 75. (Bar 5: range [10, 14] over bars 3..5, close 12 → 50.)
    const c = columns({ high: [10, 12, 11, 13, 12, 14], low: [8, 9, 9, 10, 11, 12], close: [9, 11, 11, 10, 13, 12] });
    expect(Array.from(evaluate(stoch_d, inputsOf(stoch_d, c), [3, 1, 2]))).toEqual([NaN, NaN, NaN, 50, 62.5, 75]);
  });

  it("is first defined at bar L − 1 = k + smooth + d − 3 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const consts of [[14, 3, 3], [5, 1, 1], [2, 4, 6]]) checkContract(stoch_d, inputsOf(stoch_d, bars), consts);
    checkContract(stoch_d, inputsOf(stoch_d, BARS[1]!), [14, 3, 3], { gaps: true });
  });

  it("is undefined on a flat series (zero range) and while a NaN bar is in any of its windows", () => {
    expect(Array.from(evaluate(stoch_d, inputsOf(stoch_d, flatBars(40)), [5, 3, 3])).every(Number.isNaN)).toBe(true);
    const ours = evaluate(stoch_d, inputsOf(stoch_d, columnsWithNaN(PLAIN[0]!, [120])), [14, 3, 3]);
    for (let i = 120; i < 120 + 14 + 3 + 3 - 2; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[119]).not.toBeNaN();
    expect(ours[138]).not.toBeNaN();
  });
});
