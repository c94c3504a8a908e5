/**
 * `macd_hist`: checked against technicalindicators MACD beside `macd`
 * (test/functions/builtins/macd.test.ts); here: line − signal, bit for bit.
 */
import { describe, expect, it } from "vitest";
import { FIXTURES, KERNELS as kernels, firstDefined, run } from "../series.js";

describe("macd_hist", () => {
  it("is macd − macd_signal exactly, defined where the signal is", () => {
    for (const { close } of FIXTURES) {
      const line = run(kernels.macd, [close], [12, 26]);
      const signal = run(kernels.macd_signal, [close], [12, 26, 9]);
      const hist = run(kernels.macd_hist, [close], [12, 26, 9]);
      expect(firstDefined(hist)).toBe(firstDefined(signal));
      for (let i = firstDefined(hist); i < close.length; i++) expect(hist[i]).toBe(line[i]! - signal[i]!);
    }
  });
});
