import { describe, expect, it } from "vitest";
import { tenkan } from "../../../src/functions/builtins/tenkan.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMax, windowMin } from "../../kit/index.js";

describe("tenkan", () => {
  it("is (highest(high, n) + lowest(low, n))/2 at every bar (TradingView Ichimoku conversion line)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 9, 20]) {
        const expected = series(bars.close.length, n - 1, (i) => (windowMax(bars.high, i, n) + windowMin(bars.low, i, n)) / 2);
        expectClose(evaluate(tenkan, inputsOf(tenkan, bars), [n]), expected, { rel: 0, floor: 1e-300 }, `tenkan(${n})`);
      }
  });

  it("works a small case by hand", () => {
    // n = 3: bars 0–2 span 8..12 → 10; bars 1–3 span 9..13 → 11.
    const c = columns({ high: [10, 12, 11, 13], low: [8, 9, 10, 11], close: [9, 11, 10, 12] });
    expect(Array.from(evaluate(tenkan, inputsOf(tenkan, c), [3]))).toEqual([NaN, NaN, 10, 11]);
  });

  it("is first defined at bar n − 1, keeps the kernel contract, is the price when flat and undefined with a NaN bar in the window", () => {
    for (const bars of PLAIN) for (const n of [1, 9, 52]) checkContract(tenkan, inputsOf(tenkan, bars), [n]);
    expect(Array.from(evaluate(tenkan, inputsOf(tenkan, flatBars(5)), [2])).slice(1)).toEqual([42, 42, 42, 42]);
    const out = evaluate(tenkan, inputsOf(tenkan, columnsWithNaN(PLAIN[0]!, [40])), [9]);
    for (let i = 40; i < 49; i++) expect(out[i]).toBeNaN();
    expect(out[39]).not.toBeNaN();
    expect(out[49]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("tenkan(9)", PLAIN[0]!)).toBe(evaluate(tenkan, inputsOf(tenkan, PLAIN[0]!), [9]).at(-1));
  });
});
