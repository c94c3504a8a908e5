import { equalRun, nextRun } from "./flat.js";

/**
 * Shared window statistics for `stdev`, `bb_upper` and `bb_lower`: writes
 * `meanWeight · mean + k · σ` of the last n values, σ the population standard deviation
 * (divide by n, as Bollinger, TA-Lib STDDEV and TradingView `ta.stdev` do). NaN until n values
 * exist and wherever the window holds a NaN.
 *
 * σ uses the corrected two-pass formula (Chan, Golub & LeVeque 1983):
 * `var = (Σ(x−m)² − (Σ(x−m))²/n) / n` with m the window mean. The textbook `E[x²] − E[x]²`
 * cancels catastrophically on prices far from zero (it can even go negative); the two-pass form
 * stays accurate and gives exactly 0 on a flat window.
 *
 * A flat window (n equal values, counted as a run beside the loop: shared/flat.ts) has that
 * value as its mean exactly and σ = 0, so a band is the price itself: a plain sum/n can be an
 * ulp off (twenty 3.3 average to 3.2999999999999985), which would put a dead market's close
 * above its own upper band.
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
  let run = equalRun(x, i - 1, n - 1);
  for (; i < to; i++) {
    run = nextRun(x, i, run);
    if (run >= n) {
      out[i] = meanWeight * x[i]! + 0; // + 0: σ of a flat negative window is 0, not −0
      continue;
    }
    const first = i - n + 1;
    let sum = 0;
    for (let j = first; j <= i; j++) sum += x[j]!;
    const mean = sum / n;
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
