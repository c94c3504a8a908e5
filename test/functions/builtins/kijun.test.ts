import { describe, expect, it } from "vitest";
import { kijun } from "../../../src/functions/builtins/kijun.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMax, windowMin } from "../../kit/index.js";

describe("kijun", () => {
  it("is (highest(high, n) + lowest(low, n))/2 at every bar (TradingView Ichimoku base line)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 26, 52]) {
        const expected = series(bars.close.length, n - 1, (i) => (windowMax(bars.high, i, n) + windowMin(bars.low, i, n)) / 2);
        expectClose(evaluate(kijun, inputsOf(kijun, bars), [n]), expected, { rel: 0, floor: 1e-300 }, `kijun(${n})`);
      }
  });

  it("works a small case by hand", () => {
    // n = 2: bars 0–1 span 8..12 → 10; bars 1–2 span 9..12 → 10.5; bars 2–3 span 7..11 → 9.
    const c = columns({ high: [10, 12, 11, 9], low: [8, 9, 10, 7], close: [9, 11, 10, 8] });
    expect(Array.from(evaluate(kijun, inputsOf(kijun, c), [2]))).toEqual([NaN, 10, 10.5, 9]);
  });

  it("is first defined at bar n − 1, keeps the kernel contract, is the price when flat and undefined with a NaN bar in the window", () => {
    for (const bars of PLAIN) for (const n of [1, 26]) checkContract(kijun, inputsOf(kijun, bars), [n]);
    expect(Array.from(evaluate(kijun, inputsOf(kijun, flatBars(4)), [3])).slice(2)).toEqual([42, 42]);
    const out = evaluate(kijun, inputsOf(kijun, columnsWithNaN(PLAIN[1]!, [40])), [26]);
    for (let i = 40; i < 66; i++) expect(out[i]).toBeNaN();
    expect(out[66]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("kijun(26)", PLAIN[1]!)).toBe(evaluate(kijun, inputsOf(kijun, PLAIN[1]!), [26]).at(-1));
  });
});
