/**
 * Every kernel against the `technicalindicators` package (the reference our users compare
 * with, alongside TradingView and TA-Lib) on four generated instruments, at every bar where
 * either is defined: both must be defined at the same bars and agree to 1e-9 relative.
 * Where the package deviates from the published definitions (RSI rounded to 2 decimals,
 * CrossUp looking through ties and firing on bar 0) we compare against its unrounded parts or
 * the definition instead; see research.md, "Definitions the references use".
 */
import {
  ATR,
  AverageGain,
  AverageLoss,
  BollingerBands,
  CrossDown,
  CrossUp,
  EMA,
  Highest,
  Lowest,
  MACD,
  ROC,
  RSI,
  SD,
  SMA,
  WMA,
} from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels } from "./series.js";
import { type Bars, FIXTURES, alignEnd, disagreements, firstDefined, run } from "./series.js";

const REL = 1e-9;
const N = FIXTURES[0]!.close.length;
const LENGTHS = [1, 2, 5, 9, 14, 20, 50, 200];

/** Absolute floor for relative errors: values that are differences of prices (MACD, change) hover near 0. */
const floorOf = (bars: Bars): number => bars.scale * 1e-3;

function expectAgreement(ours: Float64Array, ref: Float64Array, floor: number): void {
  const { bad, compared } = disagreements(ours, ref, REL, floor);
  expect(bad.slice(0, 5)).toEqual([]);
  expect(compared).toBeGreaterThan(0);
  expect(firstDefined(ours)).toBe(firstDefined(ref));
}

const values = (xs: Float64Array): number[] => Array.from(xs);

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("sma(close, %i) = SMA", (n) => {
    const ours = run(kernels.sma, [close], [n]);
    expectAgreement(ours, alignEnd(SMA.calculate({ period: n, values: values(close) }), N), floor);
  });

  it.each(LENGTHS)("ema(close, %i) = EMA (SMA-seeded)", (n) => {
    const ours = run(kernels.ema, [close], [n]);
    expectAgreement(ours, alignEnd(EMA.calculate({ period: n, values: values(close) }), N), floor);
  });

  it.each(LENGTHS)("wma(close, %i) = WMA", (n) => {
    const ours = run(kernels.wma, [close], [n]);
    expectAgreement(ours, alignEnd(WMA.calculate({ period: n, values: values(close) }), N), floor);
  });

  it.each(LENGTHS.filter((n) => n > 1))(
    "rsi(close, %i) = 100 − 100/(1 + AverageGain/AverageLoss), and RSI to its 2 decimals",
    (n) => {
      const ours = run(kernels.rsi, [close], [n]);
      const gain = alignEnd(AverageGain.calculate({ period: n, values: values(close) }), N);
      const loss = alignEnd(AverageLoss.calculate({ period: n, values: values(close) }), N);
      const fromAverages = gain.map((g, i) => (loss[i] === 0 ? 100 : 100 - 100 / (1 + g / loss[i]!)));
      expectAgreement(ours, fromAverages, 1);
      // The package's own RSI is rounded with toFixed(2): it may differ by up to half a cent.
      const rounded = alignEnd(RSI.calculate({ period: n, values: values(close) }), N);
      expect(firstDefined(rounded)).toBe(n);
      for (let i = n; i < N; i++) expect(Math.abs(ours[i]! - rounded[i]!)).toBeLessThanOrEqual(0.005 + 1e-9);
    },
  );

  it.each(LENGTHS)("highest(high, %i) = Highest, lowest(low, %i) = Lowest", (n) => {
    expectAgreement(
      run(kernels.highest, [bars.high], [n]),
      alignEnd(Highest.calculate({ period: n, values: values(bars.high) }), N),
      floor,
    );
    expectAgreement(
      run(kernels.lowest, [bars.low], [n]),
      alignEnd(Lowest.calculate({ period: n, values: values(bars.low) }), N),
      floor,
    );
  });

  it.each(LENGTHS)("atr(%i) = ATR (first value at bar n)", (n) => {
    const ours = run(kernels.atr, [bars.high, bars.low, close], [n]);
    const ref = ATR.calculate({ period: n, high: values(bars.high), low: values(bars.low), close: values(close) });
    expectAgreement(ours, alignEnd(ref, N), floor);
    expect(firstDefined(ours)).toBe(n);
  });

  it.each(LENGTHS)("stdev(close, %i) = SD (population)", (n) => {
    const ours = run(kernels.stdev, [close], [n]);
    expectAgreement(ours, alignEnd(SD.calculate({ period: n, values: values(close) }), N), floor);
  });

  it.each([
    [20, 2],
    [10, 1.5],
    [50, 2.5],
    [5, 0.5],
  ])("bb_upper/bb_lower(close, %i, %d) = BollingerBands", (n, k) => {
    const ref = BollingerBands.calculate({ period: n, stdDev: k, values: values(close) });
    expectAgreement(run(kernels.bb_upper, [close], [n, k]), alignEnd(ref.map((b) => b.upper), N), floor);
    expectAgreement(run(kernels.bb_lower, [close], [n, k]), alignEnd(ref.map((b) => b.lower), N), floor);
  });

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

  it.each(LENGTHS)("roc(close, %i) = ROC (in percent)", (n) => {
    const ours = run(kernels.roc, [close], [n]);
    expectAgreement(ours, alignEnd(ROC.calculate({ period: n, values: values(close) }), N), 1e-3);
  });

  it.each(LENGTHS)("change(close, %i) = close − close[n], and equals roc · close[n] / 100", (n) => {
    const ours = run(kernels.change, [close], [n]);
    const expected = close.map((c, i) => (i < n ? NaN : c - close[i - n]!));
    expectAgreement(ours, expected, floor);
    const roc = alignEnd(ROC.calculate({ period: n, values: values(close) }), N);
    const viaRoc = roc.map((r, i) => (r * close[i - n]!) / 100);
    const { bad } = disagreements(ours, viaRoc, 1e-9, floor);
    expect(bad).toEqual([]);
  });

  it("crossover/crossunder of ema(9) and ema(21) follow the definition and CrossUp/CrossDown past bar 0", () => {
    const fast = run(kernels.ema, [close], [9]);
    const slow = run(kernels.ema, [close], [21]);
    const up = run(kernels.crossover, [fast, slow], []);
    const down = run(kernels.crossunder, [fast, slow], []);
    for (let i = 0; i < N; i++) {
      const defined = i > 0;
      expect(up[i]).toBe(defined && fast[i]! > slow[i]! && fast[i - 1]! <= slow[i - 1]! ? 1 : 0);
      expect(down[i]).toBe(defined && fast[i]! < slow[i]! && fast[i - 1]! >= slow[i - 1]! ? 1 : 0);
    }
    // The package needs defined lines; from the slow EMA's first bar on, and with no ties in
    // random data, its CrossUp/CrossDown agree with the definition except on its own bar 0.
    const start = firstDefined(slow);
    const a = values(fast).slice(start);
    const b = values(slow).slice(start);
    const refUp = CrossUp.calculate({ lineA: a, lineB: b });
    const refDown = CrossDown.calculate({ lineA: a, lineB: b });
    for (let j = 1; j < a.length; j++) {
      expect(up[start + j]).toBe(refUp[j] ? 1 : 0);
      expect(down[start + j]).toBe(refDown[j] ? 1 : 0);
    }
    expect(up.reduce((s, v) => s + v, 0) + down.reduce((s, v) => s + v, 0)).toBeGreaterThan(0);
  });

  it("abs, min and max are elementwise and propagate NaN", () => {
    const diff = run(kernels.change, [close], [1]);
    const absDiff = run(kernels.abs, [diff], []);
    const lo = run(kernels.min, [bars.open, close], []);
    const hi = run(kernels.max, [bars.open, diff], []);
    for (let i = 0; i < N; i++) {
      expect(absDiff[i]).toBe(Math.abs(diff[i]!));
      expect(lo[i]).toBe(Math.min(bars.open[i]!, close[i]!));
      expect(hi[i]).toBe(Math.max(bars.open[i]!, diff[i]!));
    }
    expect(absDiff[0]).toBeNaN();
    expect(hi[0]).toBeNaN();
  });
});
