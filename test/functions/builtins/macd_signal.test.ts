/**
 * `macd_signal`: checked against technicalindicators MACD beside `macd`
 * (test/functions/builtins/macd.test.ts); here: the EMA of the line, seeded with its SMA.
 */
import { describe, expect, it } from "vitest";
import { BARS, MODULE, evaluate, firstDefined } from "../../kit/index.js";

describe("macd_signal", () => {
  it.each([
    [12, 26, 9],
    [3, 5, 4],
  ])("is ema(macd(%i, %i), %i) on the line's defined part, first defined at max(fast, slow) + signal − 2", (fast, slow, signal) => {
    for (const { close } of BARS) {
      const line = evaluate(MODULE.macd, [close], [fast, slow]);
      const viaEma = evaluate(MODULE.ema, [line], [signal]);
      const ours = evaluate(MODULE.macd_signal, [close], [fast, slow, signal]);
      expect(firstDefined(ours)).toBe(Math.max(fast, slow) + signal - 2);
      for (let i = 0; i < close.length; i++) {
        if (Number.isNaN(viaEma[i]!)) expect(ours[i]).toBeNaN();
        else expect(Math.abs(ours[i]! - viaEma[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(viaEma[i]!)));
      }
    }
  });
});

describe("macd_signal after a NaN bar", () => {
  it("stays undefined from the hole on (recursive: the NaN poisons the average, as in the references)", () => {
    const { close } = BARS[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [close].map(hole);
    const clean = evaluate(MODULE.macd_signal, [close], [5, 12, 4]);
    const out = evaluate(MODULE.macd_signal, inputs, [5, 12, 4]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
