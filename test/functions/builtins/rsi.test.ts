/**
 * `rsi`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { AverageGain, AverageLoss, RSI } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, firstDefined } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;

  it.each(LENGTHS.filter((n) => n > 1))(
    "rsi(close, %i) = 100 − 100/(1 + AverageGain/AverageLoss), and RSI to its 2 decimals",
    (n) => {
      const ours = evaluate(MODULE.rsi, [close], [n]);
      const gain = alignEnd(AverageGain.calculate({ period: n, values: Array.from(close) }), N);
      const loss = alignEnd(AverageLoss.calculate({ period: n, values: Array.from(close) }), N);
      const fromAverages = gain.map((g, i) => (loss[i] === 0 ? 100 : 100 - 100 / (1 + g / loss[i]!)));
      expectClose(ours, fromAverages, { rel: 1e-9, floor: 1 }, "against technicalindicators");
      // The package's own RSI is rounded with toFixed(2): it may differ by up to half a cent.
      const rounded = alignEnd(RSI.calculate({ period: n, values: Array.from(close) }), N);
      expect(firstDefined(rounded)).toBe(n);
      for (let i = n; i < N; i++) expect(Math.abs(ours[i]! - rounded[i]!)).toBeLessThanOrEqual(0.005 + 1e-9);
    },
  );
});

describe("worked examples", () => {
  it("rsi: [1, 2, 3, 2, 3, 4] over 3 bars is 66.67, 77.78, 85.19 (Wilder, SMA seed)", () => {
    // Changes +1 +1 −1 +1 +1. Seed at bar 3: gain 2/3, loss 1/3, RS 2. Then RMA with alpha 1/3:
    // gain 7/9, loss 2/9 (RS 3.5); gain 23/27, loss 4/27 (RS 5.75).
    const r = evaluate(MODULE.rsi, [Float64Array.from([1, 2, 3, 2, 3, 4])], [3]);
    expect(Array.from(r.subarray(0, 3))).toEqual([NaN, NaN, NaN]);
    expect(r[3]).toBeCloseTo(100 - 100 / 3, 12);
    expect(r[4]).toBeCloseTo(100 - 100 / 4.5, 12);
    expect(r[5]).toBeCloseTo(100 - 100 / 6.75, 12);
  });

  it("rsi is 100 on a rising series, 0 on a falling one, and 100 on a flat one", () => {
    const up = evaluate(MODULE.rsi, [Float64Array.from([1, 2, 3, 4, 5, 6])], [3]);
    const down = evaluate(MODULE.rsi, [Float64Array.from([6, 5, 4, 3, 2, 1])], [3]);
    const flat = evaluate(MODULE.rsi, [new Float64Array(40).fill(101.37)], [14]);
    expect(Array.from(up.subarray(3))).toEqual([100, 100, 100]);
    expect(Array.from(down.subarray(3))).toEqual([0, 0, 0]);
    expect(firstDefined(flat)).toBe(14);
    for (let i = 14; i < 40; i++) expect(flat[i]).toBe(100);
  });

  it("rsi stays 100 through a flat stretch that follows only gains (average loss exactly 0)", () => {
    const xs = Float64Array.from([10, 11, 12, ...new Array<number>(30).fill(12)]);
    const r = evaluate(MODULE.rsi, [xs], [3]);
    for (let i = 3; i < xs.length; i++) expect(r[i]).toBe(100);
  });
});

describe("rsi after a NaN bar", () => {
  it("stays undefined from the hole on (recursive: the NaN poisons the average, as in the references)", () => {
    const { close } = BARS[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [close].map(hole);
    const clean = evaluate(MODULE.rsi, [close], [14]);
    const out = evaluate(MODULE.rsi, inputs, [14]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
