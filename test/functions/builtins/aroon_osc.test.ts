import { describe, expect, it } from "vitest";
import { aroon_down } from "../../../src/functions/builtins/aroon_down.js";
import { aroon_osc } from "../../../src/functions/builtins/aroon_osc.js";
import { aroon_up } from "../../../src/functions/builtins/aroon_up.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf } from "../../kit/index.js";

describe("aroon_osc", () => {
  it("is aroon_up − aroon_down at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 14, 25]) {
        const up = evaluate(aroon_up, inputsOf(aroon_up, bars), [n]);
        const down = evaluate(aroon_down, inputsOf(aroon_down, bars), [n]);
        expectClose(evaluate(aroon_osc, inputsOf(aroon_osc, bars), [n]), up.map((u, i) => u - down[i]!), { rel: 1e-12, floor: 1 }, `aroon_osc(${n})`);
      }
  });

  it("works a hand case", () => {
    // n = 2: highs 5, 7, 6, 8 and lows 4, 3, 5, 6. Bar 2: high 1 bar ago (50), low 1 bar ago
    // (50) → 0; bar 3: high today (100), low 2 bars ago (0) → 100.
    const c = columns({ high: [5, 7, 6, 8], low: [4, 3, 5, 6], close: [5, 5, 5, 7] });
    expect(Array.from(evaluate(aroon_osc, inputsOf(aroon_osc, c), [2]))).toEqual([NaN, NaN, 0, 100]);
  });

  it("is first defined at bar n, keeps the kernel contract, is 0 flat and undefined around a NaN", () => {
    for (const bars of PLAIN) for (const n of [1, 25]) checkContract(aroon_osc, inputsOf(aroon_osc, bars), [n]);
    expect(Array.from(evaluate(aroon_osc, inputsOf(aroon_osc, flatBars(6)), [2]).subarray(2))).toEqual([0, 0, 0, 0]);
    const ours = evaluate(aroon_osc, inputsOf(aroon_osc, columnsWithNaN(PLAIN[0]!, [30])), [5]);
    for (let i = 30; i <= 35; i++) expect(ours[i]).toBeNaN();
    expect(ours[36]).not.toBeNaN();
  });
});
