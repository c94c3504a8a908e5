import { describe, expect, it } from "vitest";
import { aroon_down } from "../../../src/functions/builtins/aroon_down.js";
import { BARS, PLAIN, ageOfExtreme, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series } from "../../kit/index.js";

describe("aroon_down", () => {
  it("is 100·(n − bars since the lowest low of the last n + 1 bars)/n at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14, 25]) {
        const expected = series(bars.low.length, n, (i) => (100 * (n - ageOfExtreme(bars.low, i, n, false))) / n);
        expectClose(evaluate(aroon_down, inputsOf(aroon_down, bars), [n]), expected, { rel: 1e-12, floor: 1 }, `aroon_down(${n})`);
      }
  });

  it("works Chande's definition by hand, the latest of equal lows counting", () => {
    // n = 2 (windows of 3 bars), lows 5, 3, 4, 3, 6, 7: bar 2: low 1 bar ago → 50;
    // bar 3: equal low today → 100; bar 4: 1 bar ago → 50; bar 5: 2 bars ago → 0.
    const ours = evaluate(aroon_down, inputsOf(aroon_down, columns({ low: [5, 3, 4, 3, 6, 7], close: [5, 3, 4, 3, 6, 7] })), [2]);
    expect(Array.from(ours)).toEqual([NaN, NaN, 50, 100, 50, 0]);
  });

  it("is first defined at bar n and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 14, 60]) checkContract(aroon_down, inputsOf(aroon_down, bars), [n]);
  });

  it("is 100 on a flat series and undefined while a NaN is in the window", () => {
    expect(Array.from(evaluate(aroon_down, inputsOf(aroon_down, flatBars(8)), [2]).subarray(2))).toEqual(new Array(6).fill(100));
    const ours = evaluate(aroon_down, inputsOf(aroon_down, columnsWithNaN(PLAIN[1]!, [40])), [10]);
    for (let i = 40; i <= 50; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[51]).not.toBeNaN();
  });
});
