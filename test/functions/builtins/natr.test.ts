import { describe, expect, it } from "vitest";
import { natr } from "../../../src/functions/builtins/natr.js";
import { BARS, PLAIN, atrOf, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("natr", () => {
  it("is 100·atr(n)/close with Wilder's ATR at every bar (TA-Lib NATR)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14, 30]) {
        const atr = atrOf(bars, n);
        expectClose(evaluate(natr, inputsOf(natr, bars), [n]), atr.map((a, i) => (100 * a) / bars.close[i]!), { rel: 1e-9, floor: 1e-300 }, `natr(${n})`);
      }
  });

  it("works a small case by hand; n = 1 is the true range in percent (TA-Lib returns the bare true range there)", () => {
    // n = 2: TR at bars 1, 2 = 2 and 4 → ATR at bar 2 = 3, close 50 → 6%. Bar 3: TR 2, ATR (3 + 2)/2 = 2.5, close 25 → 10%.
    const c = columns({ high: [11, 12, 54, 26], low: [9, 10, 50, 24], close: [10, 11, 50, 25] });
    const out = evaluate(natr, inputsOf(natr, c), [2]);
    expect(out[1]).toBeNaN();
    // TR bar 2: max(4, |54 − 11|, |50 − 11|) = 43 — a gap counts: ATR (2 + 43)/2 = 22.5 → 45%.
    expect(out[2]).toBeCloseTo(45, 12);
    // Bar 3: TR max(2, |26 − 50|, |24 − 50|) = 26 → ATR (22.5 + 26)/2 = 24.25, close 25 → 97%.
    expect(out[3]).toBeCloseTo(97, 12);
    expect(evaluate(natr, inputsOf(natr, c), [1])[1]).toBeCloseTo((100 * 2) / 11, 12);
  });

  it("is undefined at a zero close (TA-Lib writes 0), 0 on a flat market, NaN from a NaN bar on", () => {
    const c = columns({ high: [2, 2, 1, 1], low: [1, 1, 0, 0], close: [1, 1, 0, 0.5] });
    const out = evaluate(natr, inputsOf(natr, c), [1]);
    expect(out[2]).toBeNaN();
    expect(out[3]).toBeCloseTo(200, 12);
    expect(Array.from(evaluate(natr, inputsOf(natr, flatBars(6)), [3])).slice(3)).toEqual([0, 0, 0]);
    const holed = evaluate(natr, inputsOf(natr, columnsWithNaN(PLAIN[0]!, [50])), [14]);
    expect(holed[49]).not.toBeNaN();
    for (let i = 50; i < holed.length; i++) expect(holed[i]).toBeNaN();
  });

  it("is first defined at bar n (L = n + 1), keeps the kernel contract, and gives the same value through compile().run", () => {
    for (const bars of PLAIN) for (const n of [1, 14, 50]) checkContract(natr, inputsOf(natr, bars), [n]);
    expect(latestThroughRun("natr(14)", PLAIN[0]!)).toBe(evaluate(natr, inputsOf(natr, PLAIN[0]!), [14]).at(-1));
  });
});
