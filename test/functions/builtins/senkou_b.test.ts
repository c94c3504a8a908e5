import { describe, expect, it } from "vitest";
import { senkou_b } from "../../../src/functions/builtins/senkou_b.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMax, windowMin } from "../../kit/index.js";

describe("senkou_b", () => {
  it("is the n-bar range midpoint computed disp − 1 bars ago (TradingView plots span B with offset disp − 1)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, disp] of [[52, 26], [3, 1], [1, 5]] as const) {
        const shift = disp - 1;
        const expected = series(bars.close.length, n - 1 + shift, (i) => (windowMax(bars.high, i - shift, n) + windowMin(bars.low, i - shift, n)) / 2);
        expectClose(evaluate(senkou_b, inputsOf(senkou_b, bars), [n, disp]), expected, { rel: 0, floor: 1e-300 }, `senkou_b(${n}, ${disp})`);
      }
  });

  it("works a small case by hand", () => {
    // n = 2, disp = 3 (two bars back): bars 0–1 span 8..12 → 10 plotted at bar 3; bars 1–2 span 9..12 → 10.5 at bar 4.
    const c = columns({ high: [10, 12, 11, 13, 9], low: [8, 9, 10, 11, 7], close: [9, 11, 10, 12, 8] });
    expect(Array.from(evaluate(senkou_b, inputsOf(senkou_b, c), [2, 3]))).toEqual([NaN, NaN, NaN, 10, 10.5]);
  });

  it("is first defined at bar n + disp − 2, keeps the kernel contract, is the price when flat", () => {
    for (const bars of PLAIN) for (const k of [[52, 26], [1, 1], [5, 2]]) checkContract(senkou_b, inputsOf(senkou_b, bars), k);
    expect(Array.from(evaluate(senkou_b, inputsOf(senkou_b, flatBars(5)), [2, 2])).slice(2)).toEqual([42, 42, 42]);
  });

  it("is undefined exactly while the displaced window holds a NaN bar", () => {
    // (52, 26): bar i reads i − 25 − 51 .. i − 25, so a hole at 100 spoils 125..176.
    const out = evaluate(senkou_b, inputsOf(senkou_b, columnsWithNaN(PLAIN[0]!, [100])), [52, 26]);
    expect(out[124]).not.toBeNaN();
    for (let i = 125; i <= 176; i++) expect(out[i]).toBeNaN();
    expect(out[177]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("senkou_b(52, 26)", PLAIN[2]!)).toBe(evaluate(senkou_b, inputsOf(senkou_b, PLAIN[2]!), [52, 26]).at(-1));
  });
});
