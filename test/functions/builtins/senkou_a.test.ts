import { describe, expect, it } from "vitest";
import { senkou_a } from "../../../src/functions/builtins/senkou_a.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMax, windowMin } from "../../kit/index.js";

const mid = (c: { high: Float64Array; low: Float64Array }, i: number, n: number): number => (windowMax(c.high, i, n) + windowMin(c.low, i, n)) / 2;

describe("senkou_a", () => {
  it("is (tenkan(conv) + kijun(base))/2 computed disp − 1 bars ago (TradingView plots span A with offset disp − 1)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [conv, base, disp] of [[9, 26, 26], [3, 5, 1], [5, 3, 4]] as const) {
        const shift = disp - 1;
        const expected = series(bars.close.length, Math.max(conv, base) - 1 + shift, (i) => (mid(bars, i - shift, conv) + mid(bars, i - shift, base)) / 2);
        expectClose(evaluate(senkou_a, inputsOf(senkou_a, bars), [conv, base, disp]), expected, { rel: 0, floor: 1e-300 }, `senkou_a(${conv}, ${base}, ${disp})`);
      }
  });

  it("works a small case by hand", () => {
    // conv 1, base 2, disp 2 (taken one bar back). Bar 1's tenkan(1) = (12 + 9)/2 = 10.5 and
    // kijun(2) = (12 + 8)/2 = 10, so span A at bar 2 is 10.25; bar 2's (11 + 10)/2 = 10.5 and
    // (12 + 9)/2 = 10.5 give 10.5 at bar 3.
    const c = columns({ high: [10, 12, 11, 13], low: [8, 9, 10, 11], close: [9, 11, 10, 12] });
    expect(Array.from(evaluate(senkou_a, inputsOf(senkou_a, c), [1, 2, 2]))).toEqual([NaN, NaN, 10.25, 10.5]);
  });

  it("is first defined at bar max(conv, base) + disp − 2, keeps the kernel contract, is the price when flat", () => {
    for (const bars of PLAIN) for (const k of [[9, 26, 26], [1, 1, 1], [26, 9, 2]]) checkContract(senkou_a, inputsOf(senkou_a, bars), k);
    expect(Array.from(evaluate(senkou_a, inputsOf(senkou_a, flatBars(6)), [2, 3, 2])).slice(3)).toEqual([42, 42, 42]);
  });

  it("is undefined exactly while the displaced windows hold a NaN bar", () => {
    // (9, 26, 26): the value at bar i reads bars i − 25 − 25 .. i − 25, so a hole at 100 spoils 125..150.
    const out = evaluate(senkou_a, inputsOf(senkou_a, columnsWithNaN(PLAIN[0]!, [100])), [9, 26, 26]);
    expect(out[124]).not.toBeNaN();
    for (let i = 125; i <= 150; i++) expect(out[i]).toBeNaN();
    expect(out[151]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("senkou_a(9, 26, 26)", PLAIN[0]!)).toBe(evaluate(senkou_a, inputsOf(senkou_a, PLAIN[0]!), [9, 26, 26]).at(-1));
  });
});
