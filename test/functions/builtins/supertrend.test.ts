import { describe, expect, it } from "vitest";
import { supertrend } from "../../../src/functions/builtins/supertrend.js";
import { BARS, PLAIN, supertrendOf, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("supertrend", () => {
  it("follows Pine's ta.supertrend script at every bar (bands ratchet, the line flips on a close through it)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, m] of [[1, 1], [10, 3], [7, 2], [14, 0.5]] as const) {
        expectClose(evaluate(supertrend, inputsOf(supertrend, bars), [n, m]), supertrendOf(bars, n, m), { rel: 1e-9, floor: 1e-300 }, `supertrend(${n}, ${m})`);
      }
  });

  it("works a small case by hand (n = 1, so the ATR is the true range; mult 1)", () => {
    // Bar 1: TR 2, hl2 10 → bands 12 / 8; the first bar is a downtrend: line = 12.
    // Bar 2: TR 2, hl2 11 → 13 / 9; the upper band may not rise (close 10 ≤ 12): 12; close 11.5 ≤ 12: line 12.
    // Bar 3: TR 2.5, hl2 13 → 15.5 / 10.5; upper held at 12; close 13.5 > 12: uptrend, line = lower 10.5.
    // Bar 4: TR 2.5, hl2 12 → 14.5 / 9.5; the lower band may not fall (close 13.5 ≥ 10.5): 10.5;
    // close 11 ≥ 10.5: still up, line 10.5. Bar 5: TR 2, hl2 10 → 12 / 8, lower held at 10.5;
    // close 9.5 < 10.5: down, line = upper 12.
    const c = columns({ high: [10, 11, 12, 14, 13, 11], low: [8, 9, 10, 12, 11, 9], close: [9, 10, 11.5, 13.5, 11, 9.5] });
    expect(Array.from(evaluate(supertrend, inputsOf(supertrend, c), [1, 1]))).toEqual([NaN, 12, 12, 10.5, 10.5, 12]);
  });

  it("is first defined at bar n (L = n + 1) and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const [n, m] of [[1, 3], [10, 3], [40, 1.5]] as const) checkContract(supertrend, inputsOf(supertrend, bars), [n, m]);
  });

  it("sits on the held upper band in a flat market, and is NaN from a NaN bar on", () => {
    // Flat: ATR 0, both bands at the price; the first bar is a downtrend and the close never
    // rises above the band: the line is the price.
    expect(Array.from(evaluate(supertrend, inputsOf(supertrend, flatBars(8)), [3, 3])).slice(3)).toEqual(Array(5).fill(42));
    const out = evaluate(supertrend, inputsOf(supertrend, columnsWithNaN(PLAIN[0]!, [120])), [10, 3]);
    expect(out[119]).not.toBeNaN();
    for (let i = 120; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("supertrend(10, 3)", PLAIN[2]!)).toBe(evaluate(supertrend, inputsOf(supertrend, PLAIN[2]!), [10, 3]).at(-1));
  });
});
