import { windowMean } from "./flat.js";

/**
 * Shared window statistics for `stdev`, `bb_upper` and `bb_lower`: writes
 * `meanWeight · mean + k · σ` of the last n values, σ the population standard deviation
 * (divide by n, as Bollinger, TA-Lib STDDEV and TradingView `ta.stdev` do). NaN until n values
 * exist and wherever the window holds a NaN.
 *
 * σ uses the corrected two-pass formula (Chan, Golub & LeVeque 1983):
 * `var = (Σ(x−m)² − (Σ(x−m))²/n) / n` with m the window mean. The textbook `E[x²] − E[x]²`
 * cancels catastrophically on prices far from zero (it can even go negative); the two-pass form
 * stays accurate and gives exactly 0 on a flat window, whose mean `windowMean` takes as its
 * value exactly (so the bands sit on a constant series, decisions §9).
 */
export function bands(
  x: Float64Array,
  n: number,
  meanWeight: number,
  k: number,
  out: Float64Array,
  from: number,
  to: number,
): void {
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const first = i - n + 1;
    const mean = windowMean(x, first, n);
    let dev = 0;
    let dev2 = 0;
    for (let j = first; j <= i; j++) {
      const e = x[j]! - mean;
      dev += e;
      dev2 += e * e;
    }
    // Math.max keeps rounding from producing sqrt of a tiny negative; it still propagates NaN.
    const variance = Math.max((dev2 - (dev * dev) / n) / n, 0);
    out[i] = meanWeight * mean + k * Math.sqrt(variance);
  }
}
