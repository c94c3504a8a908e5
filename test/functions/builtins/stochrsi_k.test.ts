import { describe, expect, it } from "vitest";
import { stochrsi_k } from "../../../src/functions/builtins/stochrsi_k.js";
import { rsi } from "../../../src/functions/builtins/rsi.js";
import { PLAIN, checkContract, evaluate, expectClose, inputsOf, series, windowMax, windowMean, windowMin, withNaN } from "../../kit/index.js";

/** Stoch RSI from its definition: the stochastic over k bars of XQL's rsi(src, n), then SMA(smooth). */
function reference(src: Float64Array, n: number, k: number, smooth: number): Float64Array {
  const r = evaluate(rsi, [src], [n]);
  const raw = series(src.length, n + k - 1, (i) => {
    const hh = windowMax(r, i, k);
    const ll = windowMin(r, i, k);
    return hh === ll ? NaN : (100 * (r[i]! - ll)) / (hh - ll);
  });
  return series(src.length, n + k + smooth - 2, (i) => windowMean(raw, i, smooth));
}

describe("stochrsi_k", () => {
  it("is the SMA(smooth) of the stochastic of rsi(src, n) at every bar", () => {
    for (const bars of PLAIN)
      for (const [n, k, smooth] of [[14, 14, 3], [14, 14, 1], [5, 9, 2], [2, 3, 1]] as const) {
        const ours = evaluate(stochrsi_k, [bars.close], [n, k, smooth]);
        // The RSI inside follows TA-Lib's operation order: equal to rsi() up to rounding, and the
        // stochastic amplifies rounding where the RSI's range is small.
        expect(expectClose(ours, reference(bars.close, n, k, smooth), { rel: 1e-6, floor: 1 }, `stochrsi_k(${n}, ${k}, ${smooth})`)).toBeGreaterThan(200);
      }
  });

  it("matches TradingView's Stoch RSI (smoothK = 3) on a worked example", () => {
    // Source: TradingView's definition, `k = ta.sma(ta.stoch(rsi1, rsi1, rsi1, lengthStoch), smoothK)`,
    // worked by hand with n = 2, k = 2, smooth = 2 on closes 10, 12, 11, 13, 12, 12, 15:
    // changes +2, −1, +2, −1, 0, +3. RSI(2) seeds at bar 2 with gain 1, loss 0.5 → 66.67;
    // bar 3: gain (1 + 2)/2 = 1.5, loss 0.25 → 85.714; bar 4: 0.75, 0.625 → 54.545;
    // bar 5: 0.375, 0.3125 → 54.545 (unchanged: a zero change scales both averages alike);
    // bar 6: 1.6875, 0.15625 → 91.525. Stochastic over 2 RSIs: bar 3 → 100, bar 4 → 0,
    // bar 5 → range 0, undefined; bar 6 → 100. SMA(2): bar 4 → 50, bar 5 and 6 undefined.
    const close = Float64Array.from([10, 12, 11, 13, 12, 12, 15]);
    const ours = evaluate(stochrsi_k, [close], [2, 2, 2]);
    expect(Array.from(ours.subarray(0, 4)).every(Number.isNaN)).toBe(true);
    expect(ours[4]).toBeCloseTo(50, 12);
    expect(ours[5]).toBeNaN();
    expect(ours[6]).toBeNaN();
    const unsmoothed = evaluate(stochrsi_k, [close], [2, 2, 1]);
    expect(Array.from(unsmoothed)).toEqual([NaN, NaN, NaN, 100, 0, NaN, 100]);
  });

  it("is first defined at bar L − 1 = n + k + smooth − 2 and keeps the kernel contract", () => {
    for (const bars of PLAIN)
      // Small n saturates the RSI at 100 (a zero k-bar range): lengths where random bars do not.
      for (const consts of [[14, 14, 3], [5, 9, 1], [6, 3, 2]]) checkContract(stochrsi_k, inputsOf(stochrsi_k, bars), consts);
  });

  it("is undefined where the RSI is flat over k bars (a flat price stretch from the start)", () => {
    const close = Float64Array.from({ length: 60 }, (_, i) => (i < 40 ? 5 : 5 + i - 39));
    const ours = evaluate(stochrsi_k, [close], [5, 5, 1]);
    for (let i = 0; i < 40; i++) expect(ours[i], `#${i}`).toBeNaN();
  });

  it("skips leading NaN in src (an input still warming up) and is poisoned by a later NaN", () => {
    const src = withNaN(PLAIN[0]!.close, [0, 1, 2]);
    const ours = evaluate(stochrsi_k, [src], [14, 14, 3]);
    expect(ours.findIndex((v) => !Number.isNaN(v))).toBe(3 + 14 + 14 + 3 - 2);
    const later = evaluate(stochrsi_k, [withNaN(PLAIN[0]!.close, [150])], [14, 14, 3]);
    expect(later[149]).not.toBeNaN();
    expect(Array.from(later.subarray(150)).every(Number.isNaN)).toBe(true);
  });

  it("declares a warm-up that lets Wilder's RSI forget its seed", () => {
    expect(stochrsi_k.recursive).toBe(true);
    expect(stochrsi_k.warmup!([14, 14, 3], 3_600_000)).toBe(Math.ceil(Math.log(1e-6) / Math.log(13 / 14)));
  });
});
