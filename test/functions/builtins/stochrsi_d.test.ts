import { describe, expect, it } from "vitest";
import { stochrsi_d } from "../../../src/functions/builtins/stochrsi_d.js";
import { stochrsi_k } from "../../../src/functions/builtins/stochrsi_k.js";
import { BARS, PLAIN, checkContract, evaluate, expectClose, inputsOf, series, windowMean, withNaN } from "../../kit/index.js";

describe("stochrsi_d", () => {
  it("is the SMA(d) of stochrsi_k at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, k, smooth, d] of [[14, 14, 3, 3], [14, 14, 1, 3], [5, 9, 2, 1]] as const) {
        const kLine = evaluate(stochrsi_k, [bars.close], [n, k, smooth]);
        const expected = series(kLine.length, n + k + smooth + d - 3, (i) => windowMean(kLine, i, d));
        const ours = evaluate(stochrsi_d, [bars.close], [n, k, smooth, d]);
        expectClose(ours, expected, { rel: 1e-12, floor: 1 }, `stochrsi_d(${n}, ${k}, ${smooth}, ${d})`);
      }
  });

  it("works TradingView's D line on the worked example of stochrsi_k", () => {
    // Source: TradingView `d = ta.sma(k, smoothD)`. Unsmoothed %K (n = 2, k = 2) on closes
    // 10, 12, 11, 13, 12, 12, 15 is NaN, NaN, NaN, 100, 0, NaN, 100 (see stochrsi_k.test.ts);
    // d = 2 averages bars 3 and 4 to 50, and the undefined bar 5 spoils bars 5 and 6.
    const close = Float64Array.from([10, 12, 11, 13, 12, 12, 15]);
    expect(Array.from(evaluate(stochrsi_d, [close], [2, 2, 1, 2]))).toEqual([NaN, NaN, NaN, NaN, 50, NaN, NaN]);
  });

  it("is first defined at bar L − 1 = n + k + smooth + d − 3 and keeps the kernel contract", () => {
    for (const bars of PLAIN)
      for (const consts of [[14, 14, 3, 3], [5, 9, 1, 1], [6, 3, 2, 4]]) checkContract(stochrsi_d, inputsOf(stochrsi_d, bars), consts);
  });

  it("is undefined on a flat series and poisoned by a NaN after the start", () => {
    const flat = new Float64Array(80).fill(3);
    expect(Array.from(evaluate(stochrsi_d, [flat], [5, 5, 3, 3])).every(Number.isNaN)).toBe(true);
    const later = evaluate(stochrsi_d, [withNaN(PLAIN[1]!.close, [200])], [14, 14, 3, 3]);
    expect(later[199]).not.toBeNaN();
    expect(Array.from(later.subarray(200)).every(Number.isNaN)).toBe(true);
  });
});
