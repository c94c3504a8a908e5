import { describe, expect, it } from "vitest";
import { cci } from "../../../src/functions/builtins/cci.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series, windowMean } from "../../kit/index.js";

describe("cci", () => {
  it("is (tp − mean tp)/(0.015 · mean |tp − mean tp|) over n bars at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 14, 20]) {
        const tp = bars.close.map((c, i) => (bars.high[i]! + bars.low[i]! + c) / 3);
        const expected = series(tp.length, n - 1, (i) => {
          const mean = windowMean(tp, i, n);
          let dev = 0;
          let flat = true;
          for (let j = i - n + 1; j <= i; j++) {
            dev += Math.abs(tp[j]! - mean);
            flat &&= tp[j] === tp[i];
          }
          // A flat window (n equal typical prices) is undefined, whatever rounding left in dev.
          return flat ? NaN : (tp[i]! - mean) / ((0.015 * dev) / n);
        });
        // Near zero the numerator is a difference of nearly equal prices: 1e-9 absolute there.
        expectClose(evaluate(cci, inputsOf(cci, bars), [n]), expected, { rel: 1e-9, floor: 1 }, `cci(${n})`);
      }
  });

  it("works Lambert's formula by hand", () => {
    // n = 3, typical prices 10, 12, 14 (high = low = close): mean 12, mean deviation 4/3;
    // CCI = (14 − 12)/(0.015 · 4/3) = 100. Next tp 11: window 12, 14, 11, mean 37/3,
    // deviations 1/3, 5/3, 4/3 → mean 10/9; CCI = (11 − 37/3)/(0.015 · 10/9) = −80.
    const ours = evaluate(cci, inputsOf(cci, columns({ close: [10, 12, 14, 11] })), [3]);
    expect(ours[0]).toBeNaN();
    expect(ours[1]).toBeNaN();
    expect(ours[2]).toBeCloseTo(100, 10);
    expect(ours[3]).toBeCloseTo(-80, 10);
  });

  it("is first defined at bar n − 1 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [2, 20, 60]) checkContract(cci, inputsOf(cci, bars), [n]);
  });

  it("is undefined on n identical bars at any price, where the computed mean rounds off them (not ±66.67)", () => {
    for (const price of [0.1, 3.3, 1.1, 101731.68, 7e-9, 0.7]) {
      const flat = columns({ close: new Array<number>(30).fill(price) });
      const ours = evaluate(cci, inputsOf(cci, flat), [20]);
      expect(Array.from(ours).every(Number.isNaN), String(price)).toBe(true);
    }
  });

  it("is undefined with no deviation in the window (TA-Lib writes 0) and while a NaN bar is in it", () => {
    expect(Array.from(evaluate(cci, inputsOf(cci, flatBars(25)), [5])).every(Number.isNaN)).toBe(true);
    const ours = evaluate(cci, inputsOf(cci, columnsWithNaN(PLAIN[0]!, [80])), [20]);
    for (let i = 80; i < 100; i++) expect(ours[i]).toBeNaN();
    expect(ours[79]).not.toBeNaN();
    expect(ours[100]).not.toBeNaN();
  });
});
