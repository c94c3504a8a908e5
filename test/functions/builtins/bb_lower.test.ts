/**
 * `bb_lower`: checked against technicalindicators BollingerBands beside `bb_upper`
 * (test/functions/builtins/bb_upper.test.ts); here its own identities.
 */
import { describe, expect, it } from "vitest";
import { FIXTURES, KERNELS as kernels, f64, run } from "../series.js";

describe("bb_lower", () => {
  it("worked example: [2, 4, 4, 4, 5, 5, 7, 9] over 8 bars is 5 − k·2", () => {
    expect(run(kernels.bb_lower, [f64([2, 4, 4, 4, 5, 5, 7, 9])], [8, 2])[7]).toBe(1);
    expect(run(kernels.bb_lower, [f64([2, 4, 4, 4, 5, 5, 7, 9])], [8, 0.5])[7]).toBe(4);
  });

  it("upper and lower are symmetric about the SMA, and a negative k swaps them", () => {
    for (const { close } of FIXTURES) {
      const sma = run(kernels.sma, [close], [20]);
      const lo = run(kernels.bb_lower, [close], [20, 2]);
      const up = run(kernels.bb_upper, [close], [20, 2]);
      const swapped = run(kernels.bb_lower, [close], [20, -2]);
      for (let i = 19; i < close.length; i++) {
        expect(Math.abs(up[i]! + lo[i]! - 2 * sma[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(sma[i]!));
        expect(Math.abs(swapped[i]! - up[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(up[i]!));
      }
    }
  });
});
