/**
 * `macd`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { MACD } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, MODULE, alignEnd, evaluate, expectClose, firstDefined, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each([
    [12, 26, 9],
    [5, 35, 5],
    [3, 10, 16],
    [8, 17, 1],
  ])("macd/macd_signal/macd_hist(close, %i, %i, %i) = MACD with EMA oscillator and EMA signal", (fast, slow, signal) => {
    const ref = MACD.calculate({
      values: Array.from(close),
      fastPeriod: fast,
      slowPeriod: slow,
      signalPeriod: signal,
      SimpleMAOscillator: false,
      SimpleMASignal: false,
    });
    expectClose(evaluate(MODULE.macd, [close], [fast, slow]), alignEnd(ref.map((m) => m.MACD), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
    expectClose(evaluate(MODULE.macd_signal, [close], [fast, slow, signal]), alignEnd(ref.map((m) => m.signal), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
    expectClose(evaluate(MODULE.macd_hist, [close], [fast, slow, signal]), alignEnd(ref.map((m) => m.histogram), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});

describe("worked examples", () => {
  it("macd is ema(fast) − ema(slow), signal is the ema of the line, hist their difference, bit for bit", () => {
    for (const { close } of BARS) {
      const line = evaluate(MODULE.macd, [close], [12, 26]);
      const signal = evaluate(MODULE.macd_signal, [close], [12, 26, 9]);
      const hist = evaluate(MODULE.macd_hist, [close], [12, 26, 9]);
      const fast = evaluate(MODULE.ema, [close], [12]);
      const slow = evaluate(MODULE.ema, [close], [26]);
      const signalOfLine = evaluate(MODULE.ema, [line], [9]);
      expect(firstDefined(line)).toBe(25);
      expect(firstDefined(signal)).toBe(33);
      for (let i = 0; i < close.length; i++) {
        expect(Object.is(line[i], i < 25 ? NaN : fast[i]! - slow[i]!)).toBe(true);
        expect(Object.is(signal[i], signalOfLine[i])).toBe(true);
        expect(Object.is(hist[i], i < 33 ? NaN : line[i]! - signal[i]!)).toBe(true);
      }
    }
  });
});

describe("macd after a NaN bar", () => {
  it("stays undefined from the hole on (recursive: the NaN poisons the average, as in the references)", () => {
    const { close } = BARS[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [close].map(hole);
    const clean = evaluate(MODULE.macd, [close], [5, 12]);
    const out = evaluate(MODULE.macd, inputs, [5, 12]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
