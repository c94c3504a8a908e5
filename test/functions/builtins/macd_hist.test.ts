/**
 * `macd_hist`: checked against technicalindicators MACD beside `macd`
 * (test/functions/builtins/macd.test.ts); here: line − signal, bit for bit.
 */
import { describe, expect, it } from "vitest";
import { BARS, MODULE, evaluate, firstDefined } from "../../kit/index.js";

describe("macd_hist", () => {
  it("is macd − macd_signal exactly, defined where the signal is", () => {
    for (const { close } of BARS) {
      const line = evaluate(MODULE.macd, [close], [12, 26]);
      const signal = evaluate(MODULE.macd_signal, [close], [12, 26, 9]);
      const hist = evaluate(MODULE.macd_hist, [close], [12, 26, 9]);
      expect(firstDefined(hist)).toBe(firstDefined(signal));
      for (let i = firstDefined(hist); i < close.length; i++) expect(hist[i]).toBe(line[i]! - signal[i]!);
    }
  });
});

describe("macd_hist after a NaN bar", () => {
  it("stays undefined from the hole on (recursive: the NaN poisons the average, as in the references)", () => {
    const { close } = BARS[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [close].map(hole);
    const clean = evaluate(MODULE.macd_hist, [close], [5, 12, 4]);
    const out = evaluate(MODULE.macd_hist, inputs, [5, 12, 4]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
