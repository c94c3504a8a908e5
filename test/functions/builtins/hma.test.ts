import { describe, expect, it } from "vitest";
import { hma } from "../../../src/functions/builtins/hma.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, wmaOf } from "../../kit/index.js";

describe("hma", () => {
  it("is wma(2·wma(src, ⌊n/2⌋) − wma(src, n), ⌊√n⌋) at every bar (Pine's definition of ta.hma)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 4, 9, 16, 20]) {
        const half = wmaOf(bars.close, Math.floor(n / 2));
        const full = wmaOf(bars.close, n);
        const diff = half.map((v, i) => 2 * v - full[i]!);
        const s = Math.floor(Math.sqrt(n));
        const expected = wmaOf(diff, s).map((v, i) => (i < n + s - 2 ? NaN : v));
        expectClose(evaluate(hma, inputsOf(hma, bars), [n]), expected, { rel: 1e-9, floor: 1e-300 }, `hma(${n})`);
      }
  });

  it("tracks a straight line without lag (Hull's construction), worked by hand", () => {
    // On x = 1, 2, 3, …: wma(2) lags by 1/3 and wma(4) by 1, so 2·wma(2) − wma(4) = x + 1/3, and
    // its wma(⌊√4⌋ = 2) lags by 1/3 again: HMA(4) = x from bar 4 + 2 − 2 = 4 on.
    const out = evaluate(hma, inputsOf(hma, columns({ close: [1, 2, 3, 4, 5, 6, 7] })), [4]);
    expect(Array.from(out.slice(0, 4)).every(Number.isNaN)).toBe(true);
    for (let i = 4; i < 7; i++) expect(out[i]).toBeCloseTo(i + 1, 13);
    // n = 1: the half length ⌊1/2⌋ = 0 is taken as 1, so hma(src, 1) = src.
    expect(Array.from(evaluate(hma, inputsOf(hma, columns({ close: [3, 1, 4] })), [1]))).toEqual([3, 1, 4]);
  });

  it("is first defined at bar n + ⌊√n⌋ − 2, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 2, 9, 20, 50]) checkContract(hma, inputsOf(hma, bars), [n]);
    const warming = emaOf(PLAIN[0]!.close, 5);
    expect(evaluate(hma, inputsOf(hma, PLAIN[0]!, [warming]), [9]).findIndex((v) => !Number.isNaN(v))).toBe(4 + 9 + 3 - 2);
  });

  it("is the price on a flat series and undefined while a NaN bar is in its window", () => {
    const flat = evaluate(hma, inputsOf(hma, flatBars(20)), [9]);
    for (let i = 10; i < 20; i++) expect(flat[i]).toBeCloseTo(42, 12);
    const out = evaluate(hma, inputsOf(hma, columnsWithNaN(PLAIN[0]!, [100])), [9]);
    expect(out[99]).not.toBeNaN();
    for (let i = 100; i <= 110; i++) expect(out[i]).toBeNaN();
    expect(out[111]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("hma(16)", PLAIN[2]!)).toBe(evaluate(hma, inputsOf(hma, PLAIN[2]!), [16]).at(-1));
  });
});
