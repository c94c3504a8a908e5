import { describe, expect, it } from "vitest";
import { cmf } from "../../../src/functions/builtins/cmf.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series } from "../../kit/index.js";

describe("cmf", () => {
  it("is Σ money-flow volume / Σ volume over n, high = low adding no flow (TradingView CMF's script)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 3, 20]) {
        const expected = series(bars.close.length, n - 1, (i) => {
          let flow = 0;
          let vol = 0;
          for (let j = i - n + 1; j <= i; j++) {
            const h = bars.high[j]!;
            const l = bars.low[j]!;
            const c = bars.close[j]!;
            flow += h === l ? 0 : ((2 * c - l - h) / (h - l)) * bars.volume[j]!;
            vol += bars.volume[j]!;
          }
          return vol === 0 ? NaN : flow / vol;
        });
        expectClose(evaluate(cmf, inputsOf(cmf, bars), [n]), expected, { rel: 1e-12, floor: 1 }, `cmf(${n})`);
      }
  });

  it("works a small case by hand", () => {
    // Close on the high (CLV 1) with 100, on the low (CLV −1) with 300, a bar without range with
    // 100: (100 − 300 + 0)/500 = −0.4.
    const c = columns({ high: [10, 10, 9], low: [8, 8, 9], close: [10, 8, 9], volume: [100, 300, 100] });
    expect(evaluate(cmf, inputsOf(cmf, c), [3])[2]).toBeCloseTo(-0.4, 15);
  });

  it("is 0 on a flat market with volume, undefined with no volume in the window and while a NaN bar is in it", () => {
    expect(Array.from(evaluate(cmf, inputsOf(cmf, flatBars(4)), [2])).slice(1)).toEqual([0, 0, 0]);
    const out = evaluate(cmf, inputsOf(cmf, BARS[0]!), [5]);
    for (let i = 24; i < 30; i++) expect(out[i]).toBeNaN();
    expect(out[23]).not.toBeNaN();
    const holed = evaluate(cmf, inputsOf(cmf, columnsWithNaN(PLAIN[0]!, [60])), [20]);
    for (let i = 60; i < 80; i++) expect(holed[i]).toBeNaN();
    expect(holed[80]).not.toBeNaN();
  });

  it("is first defined at bar n − 1, keeps the kernel contract, gives the same value through compile().run", () => {
    for (const bars of PLAIN) for (const n of [1, 20, 60]) checkContract(cmf, inputsOf(cmf, bars), [n]);
    expect(latestThroughRun("cmf(20)", PLAIN[2]!)).toBe(evaluate(cmf, inputsOf(cmf, PLAIN[2]!), [20]).at(-1));
  });
});
