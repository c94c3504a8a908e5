import { describe, expect, it } from "vitest";
import { percent_rank } from "../../../src/functions/builtins/percent_rank.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series } from "../../kit/index.js";

describe("percent_rank", () => {
  it("is the percentage of the previous n values ≤ the current one (TradingView ta.percentrank)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 5, 100]) {
        const expected = series(bars.close.length, n, (i) => {
          let count = 0;
          for (let j = i - n; j < i; j++) if (bars.close[j]! <= bars.close[i]!) count++;
          return (100 * count) / n;
        });
        expectClose(evaluate(percent_rank, inputsOf(percent_rank, bars), [n]), expected, { rel: 0, floor: 1e-300 }, `percent_rank(${n})`);
      }
  });

  it("works a small case by hand (Pine's documentation: previous values less than or equal to the current)", () => {
    // n = 3 over 1, 3, 2, 2, 5: bar 3 (2) has 1 and 2 at or below it among 1, 3, 2 → 66.67%;
    // bar 4 (5) is above all of 3, 2, 2 → 100%.
    const out = evaluate(percent_rank, inputsOf(percent_rank, columns({ close: [1, 3, 2, 2, 5] })), [3]);
    expect(out[2]).toBeNaN();
    expect(out[3]).toBeCloseTo(200 / 3, 13);
    expect(out[4]).toBe(100);
  });

  it("ranks 100 on a flat series (equal counts as at or below), undefined with a NaN in the window or now", () => {
    expect(Array.from(evaluate(percent_rank, inputsOf(percent_rank, flatBars(4)), [2]))).toEqual([NaN, NaN, 100, 100]);
    const out = evaluate(percent_rank, inputsOf(percent_rank, columnsWithNaN(PLAIN[0]!, [60])), [10]);
    for (let i = 60; i <= 70; i++) expect(out[i]).toBeNaN();
    expect(out[59]).not.toBeNaN();
    expect(out[71]).not.toBeNaN();
  });

  it("is first defined at bar n (L = n + 1), after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 20, 100]) checkContract(percent_rank, inputsOf(percent_rank, bars), [n]);
    expect(evaluate(percent_rank, inputsOf(percent_rank, PLAIN[0]!, [emaOf(PLAIN[0]!.close, 5)]), [10]).findIndex((v) => !Number.isNaN(v))).toBe(14);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("percent_rank(50)", PLAIN[1]!)).toBe(evaluate(percent_rank, inputsOf(percent_rank, PLAIN[1]!), [50]).at(-1));
  });
});
