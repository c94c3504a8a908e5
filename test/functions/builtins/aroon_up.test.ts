import { describe, expect, it } from "vitest";
import { aroon_up } from "../../../src/functions/builtins/aroon_up.js";
import { BARS, PLAIN, ageOfExtreme, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series } from "../../kit/index.js";

describe("aroon_up", () => {
  it("is 100·(n − bars since the highest high of the last n + 1 bars)/n at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14, 25]) {
        const expected = series(bars.high.length, n, (i) => (100 * (n - ageOfExtreme(bars.high, i, n, true))) / n);
        expectClose(evaluate(aroon_up, inputsOf(aroon_up, bars), [n]), expected, { rel: 1e-12, floor: 1 }, `aroon_up(${n})`);
      }
  });

  it("works Chande's definition by hand, the latest of equal highs counting", () => {
    // n = 3 (windows of 4 bars), highs 5, 7, 6, 7, 4, 3, 2: bar 3 has the high again → 100;
    // bar 4: the high was 1 bar ago → 66.7; bar 5: 2 bars ago → 33.3; bar 6: 3 bars ago → 0.
    const ours = evaluate(aroon_up, inputsOf(aroon_up, columns({ high: [5, 7, 6, 7, 4, 3, 2] })), [3]);
    expect(Array.from(ours.subarray(0, 3)).every(Number.isNaN)).toBe(true);
    expect(ours[3]).toBe(100);
    expect(ours[4]).toBeCloseTo(200 / 3, 12);
    expect(ours[5]).toBeCloseTo(100 / 3, 12);
    expect(ours[6]).toBe(0);
  });

  it("is first defined at bar n and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 14, 60]) checkContract(aroon_up, inputsOf(aroon_up, bars), [n]);
  });

  it("is 100 on a flat series (every bar ties, the latest wins) and undefined while a NaN is in the window", () => {
    expect(Array.from(evaluate(aroon_up, inputsOf(aroon_up, flatBars(10)), [3]).subarray(3))).toEqual(new Array(7).fill(100));
    const ours = evaluate(aroon_up, inputsOf(aroon_up, columnsWithNaN(PLAIN[0]!, [40])), [14]);
    for (let i = 40; i <= 54; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[39]).not.toBeNaN();
    expect(ours[55]).not.toBeNaN();
  });
});
