import { describe, expect, it } from "vitest";
import { sum } from "../../../src/functions/builtins/sum.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowSum } from "../../kit/index.js";

describe("sum", () => {
  it("is the sum of the last n values at every bar (TA-Lib SUM)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 30]) expectClose(evaluate(sum, inputsOf(sum, bars), [n]), series(bars.close.length, n - 1, (i) => windowSum(bars.close, i, n)), { rel: 0, floor: 1e-300 }, `sum(${n})`);
  });

  it("works a small case by hand, and sums a flat stretch after a spike exactly (no running-sum residue)", () => {
    expect(Array.from(evaluate(sum, inputsOf(sum, columns({ close: [1, 2, 3, 4] })), [3]))).toEqual([NaN, NaN, 6, 9]);
    // 1e17 then 0.1s: a running sum (+x, −x) would keep the spike's rounding error; the direct sum is 0.3.
    const spike = evaluate(sum, inputsOf(sum, columns({ close: [1e17, 0.1, 0.1, 0.1] })), [3]);
    expect(spike[3]).toBe(0.1 + 0.1 + 0.1);
  });

  it("is first defined at bar n − 1 (also after an input's warm-up), keeps the kernel contract, n·price when flat, NaN with a NaN bar in the window", () => {
    for (const bars of PLAIN) for (const n of [1, 5, 40]) checkContract(sum, inputsOf(sum, bars), [n]);
    expect(evaluate(sum, inputsOf(sum, PLAIN[0]!, [emaOf(PLAIN[0]!.close, 5)]), [10]).findIndex((v) => !Number.isNaN(v))).toBe(13);
    expect(Array.from(evaluate(sum, inputsOf(sum, flatBars(4)), [4]))).toEqual([NaN, NaN, NaN, 168]);
    const out = evaluate(sum, inputsOf(sum, columnsWithNaN(PLAIN[0]!, [60])), [5]);
    for (let i = 60; i < 65; i++) expect(out[i]).toBeNaN();
    expect(out[65]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("sum(volume, 20)", PLAIN[0]!)).toBe(evaluate(sum, [PLAIN[0]!.volume], [20]).at(-1));
  });
});
