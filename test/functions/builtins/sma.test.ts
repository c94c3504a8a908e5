/**
 * `sma`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { SMA } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, floorOf, prng } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("sma(close, %i) = SMA", (n) => {
    const ours = evaluate(MODULE.sma, [close], [n]);
    expectClose(ours, alignEnd(SMA.calculate({ period: n, values: Array.from(close) }), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});

describe("worked examples", () => {
  it("sma and wma: [1, 2, 3, 4] over 3 bars", () => {
    expect(Array.from(evaluate(MODULE.sma, [Float64Array.from([1, 2, 3, 4])], [3]))).toEqual([NaN, NaN, 2, 3]);
    // (1·1 + 2·2 + 3·3) / 6 and (1·2 + 2·3 + 3·4) / 6: the newest bar weighs n.
    expect(Array.from(evaluate(MODULE.wma, [Float64Array.from([1, 2, 3, 4])], [3]))).toEqual([NaN, NaN, 14 / 6, 20 / 6]);
  });
});

describe("accuracy", () => {
  // Prices near 100 with a spike up to 1e9 every 37 bars: a plain running sum keeps the
  // rounding error of the spike (~1e9 · 2⁻⁵³) after it leaves the window.
  const N = 300;
  const rand = prng(7);
  const spiky = new Float64Array(N);
  for (let i = 0; i < N; i++) spiky[i] = 100 + rand() * 10 + (i % 37 === 5 ? 1e9 * rand() : 0);

  /** The window mean in exact arithmetic: every double here is an integer multiple of 2⁻⁸⁰. */
  const SCALE = 2 ** 80;
  const exactMean = (xs: Float64Array, first: number, last: number): number => {
    let s = 0n;
    for (let j = first; j <= last; j++) s += BigInt(xs[j]! * SCALE);
    return Number(s) / SCALE / (last - first + 1);
  };

  it.each([5, 20, 50])("sma(%i) stays within 1e-12 of the exact window mean over spikes (a plain running sum does not)", (n) => {
    const ours = evaluate(MODULE.sma, [spiky], [n]);
    let worst = 0;
    let worstPlain = 0;
    let plain = 0;
    for (let i = 0; i < N; i++) {
      plain += spiky[i]!;
      if (i >= n) plain -= spiky[i - n]!;
      if (i < n - 1) continue;
      const exact = exactMean(spiky, i - n + 1, i);
      worst = Math.max(worst, Math.abs(ours[i]! - exact) / exact);
      worstPlain = Math.max(worstPlain, Math.abs(plain / n - exact) / exact);
    }
    expect(worst).toBeLessThanOrEqual(1e-12);
    if (n <= 20) expect(worstPlain).toBeGreaterThan(1e-11);
  });

  it("sma over a window holding ±Infinity is IEEE's answer and recovers once it leaves", () => {
    const xs = Float64Array.from([1, Infinity, 1, 1, -Infinity, Infinity, 2, 4]);
    expect(Array.from(evaluate(MODULE.sma, [xs], [2]))).toEqual([NaN, Infinity, Infinity, 1, -Infinity, NaN, Infinity, 3]);
  });
});
