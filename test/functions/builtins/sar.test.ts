import { describe, expect, it } from "vitest";
import { sar } from "../../../src/functions/builtins/sar.js";
import { PLAIN, checkContract, columns, columnsWithNaN, evaluate, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("sar", () => {
  it("works Wilder's procedure by hand: a long start, a new extreme, a reversal to short and back", () => {
    // step 0.02, max 0.2. Bar 1 rose (−DM = 0): long, stop = bar 0's low 9, extreme 11.
    // Bar 1 prints 9; next stop 9 + 0.02·(11 − 9) = 9.04. Bar 2 (high 12, a new extreme) prints
    // 9.04; af 0.04, next stop 9.04 + 0.04·(12 − 9.04) = 9.1584. Bar 3's low 9.1 touches it:
    // short, the stop jumps to the extreme 12 (and prints it); af 0.02, extreme 9.1, next stop
    // max(12 − 0.02·2.9, highs 12, 11.5) = 12. Bar 4 prints 12; its low 9 is a new extreme:
    // af 0.04, next stop 12 − 0.04·3 = 11.88. Bar 5's high 12.5 crosses it: long again, the stop
    // is the short trend's extreme, capped by the lows: min(9, 9, 11) = 9.
    const c = columns({ high: [10, 11, 12, 11.5, 11, 12.5], low: [9, 10, 10.5, 9.1, 9, 11], close: [9.5, 10.5, 11.5, 9.5, 9.5, 12] });
    const out = evaluate(sar, inputsOf(sar, c), [0.02, 0.2]);
    expect(out[0]).toBeNaN();
    expect(out[1]).toBe(9);
    expect(out[2]).toBeCloseTo(9.04, 14);
    expect(out[3]).toBe(12);
    expect(out[4]).toBe(12);
    expect(out[5]).toBe(9);
  });

  it("starts short when bar 1's low fell further than its high rose, with bar 0's high as the stop", () => {
    const c = columns({ high: [10, 9.9, 9.8], low: [9, 8, 7.5], close: [9.5, 8.5, 8] });
    const out = evaluate(sar, inputsOf(sar, c), [0.02, 0.2]);
    expect(out[1]).toBe(10);
    // Bar 2: af 0.02, extreme 8 → 10 + 0.02·(8 − 10) = 9.96, above bar 1's and bar 2's highs (9.9, 9.8).
    expect(out[2]).toBeCloseTo(9.96, 14);
    // Had bar 1's high reached the first stop (10.2 ≥ 10), it would have reversed at once to long,
    // the stop becoming the short trend's extreme, bar 1's low.
    const touched = evaluate(sar, inputsOf(sar, columns({ high: [10, 10.2], low: [9, 8], close: [9.5, 8.5] })), [0.02, 0.2]);
    expect(touched[1]).toBe(8);
  });

  it("clamps a step above the maximum to the maximum (as TA-Lib)", () => {
    const bars = PLAIN[0]!;
    expect(Array.from(evaluate(sar, inputsOf(sar, bars), [0.5, 0.2]))).toEqual(Array.from(evaluate(sar, inputsOf(sar, bars), [0.2, 0.2])));
  });

  it("never enters the current bar's range while the trend lasts, on random bars", () => {
    for (const bars of PLAIN) {
      const out = evaluate(sar, inputsOf(sar, bars), [0.02, 0.2]);
      for (let i = 2; i < out.length; i++) {
        // A printed stop is below the bar's low in an uptrend or above its high in a downtrend,
        // except on a reversal bar, where it is the old extreme (outside the new trend's side).
        const inside = out[i]! > bars.low[i]! && out[i]! < bars.high[i]!;
        expect(inside, `bar ${i}`).toBe(false);
      }
    }
  });

  it("is first defined at bar 1 (L = 2), keeps the kernel contract, holds on a flat series, and is NaN from a NaN bar on", () => {
    for (const bars of PLAIN) for (const [s, m] of [[0.02, 0.2], [0.01, 0.1]] as const) checkContract(sar, inputsOf(sar, bars), [s, m]);
    const flat = evaluate(sar, inputsOf(sar, flatBars(6)), [0.02, 0.2]);
    expect(flat[0]).toBeNaN();
    for (let i = 1; i < 6; i++) expect(flat[i]).toBe(42);
    const out = evaluate(sar, inputsOf(sar, columnsWithNaN(PLAIN[0]!, [90])), [0.02, 0.2]);
    expect(out[89]).not.toBeNaN();
    for (let i = 90; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("sar(0.02, 0.2)", PLAIN[1]!)).toBe(evaluate(sar, inputsOf(sar, PLAIN[1]!), [0.02, 0.2]).at(-1));
  });
});
