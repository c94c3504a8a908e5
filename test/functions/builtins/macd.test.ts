/**
 * `macd`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { MACD } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, alignEnd, expectAgreement, firstDefined, floorOf, run, values } from "../series.js";

const N = FIXTURES[0]!.close.length;

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each([
    [12, 26, 9],
    [5, 35, 5],
    [3, 10, 16],
    [8, 17, 1],
  ])("macd/macd_signal/macd_hist(close, %i, %i, %i) = MACD with EMA oscillator and EMA signal", (fast, slow, signal) => {
    const ref = MACD.calculate({
      values: values(close),
      fastPeriod: fast,
      slowPeriod: slow,
      signalPeriod: signal,
      SimpleMAOscillator: false,
      SimpleMASignal: false,
    });
    expectAgreement(run(kernels.macd, [close], [fast, slow]), alignEnd(ref.map((m) => m.MACD), N), floor);
    expectAgreement(
      run(kernels.macd_signal, [close], [fast, slow, signal]),
      alignEnd(ref.map((m) => m.signal), N),
      floor,
    );
    expectAgreement(
      run(kernels.macd_hist, [close], [fast, slow, signal]),
      alignEnd(ref.map((m) => m.histogram), N),
      floor,
    );
  });
});

describe("worked examples", () => {
  it("macd is ema(fast) − ema(slow), signal is the ema of the line, hist their difference, bit for bit", () => {
    for (const { close } of FIXTURES) {
      const line = run(kernels.macd, [close], [12, 26]);
      const signal = run(kernels.macd_signal, [close], [12, 26, 9]);
      const hist = run(kernels.macd_hist, [close], [12, 26, 9]);
      const fast = run(kernels.ema, [close], [12]);
      const slow = run(kernels.ema, [close], [26]);
      const signalOfLine = run(kernels.ema, [line], [9]);
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
    const { high, low, close } = FIXTURES[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [close].map(hole);
    const clean = run(kernels.macd, [close], [5, 12]);
    const out = run(kernels.macd, inputs, [5, 12]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
