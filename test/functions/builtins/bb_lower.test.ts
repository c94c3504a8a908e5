/**
 * `bb_lower`: checked against technicalindicators BollingerBands beside `bb_upper`
 * (test/functions/builtins/bb_upper.test.ts); here its own identities.
 */
import { describe, expect, it } from "vitest";
import { BARS, MODULE, evaluate } from "../../kit/index.js";

describe("bb_lower", () => {
  it("worked example: [2, 4, 4, 4, 5, 5, 7, 9] over 8 bars is 5 − k·2", () => {
    expect(evaluate(MODULE.bb_lower, [Float64Array.from([2, 4, 4, 4, 5, 5, 7, 9])], [8, 2])[7]).toBe(1);
    expect(evaluate(MODULE.bb_lower, [Float64Array.from([2, 4, 4, 4, 5, 5, 7, 9])], [8, 0.5])[7]).toBe(4);
  });

  it("upper and lower are symmetric about the SMA, and a negative k swaps them", () => {
    for (const { close } of BARS) {
      const sma = evaluate(MODULE.sma, [close], [20]);
      const lo = evaluate(MODULE.bb_lower, [close], [20, 2]);
      const up = evaluate(MODULE.bb_upper, [close], [20, 2]);
      const swapped = evaluate(MODULE.bb_lower, [close], [20, -2]);
      for (let i = 19; i < close.length; i++) {
        expect(Math.abs(up[i]! + lo[i]! - 2 * sma[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(sma[i]!));
        expect(Math.abs(swapped[i]! - up[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(up[i]!));
      }
    }
  });
});
