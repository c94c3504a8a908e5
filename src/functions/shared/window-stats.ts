import type { Kernel } from "../module.js";

/**
 * A kernel over the mean and population standard deviation σ of the last n values (current bar
 * included): `combine(x, mean, σ, consts)` gives the output at each bar, from the bar's own
 * value x. Shared by `bb_width`, `bb_percent` and `zscore`. NaN until n values exist and
 * wherever the window holds a NaN (NaN propagates through the sums).
 *
 * Two-pass and shifted: the sums run over offsets from the window's first value, so a flat
 * window's mean is exactly that value (a plain sum/n can be an ulp off) and its σ exactly 0;
 * σ uses the corrected two-pass formula `(Σe² − (Σe)²/n)/n`, e = x − mean (Chan, Golub &
 * LeVeque), so it does not cancel on prices far from zero. (`stdev` and the bands keep their
 * own unshifted loop in `bands.ts`.)
 */
export function windowStatsKernel(combine: (x: number, mean: number, sigma: number, consts: readonly number[]) => number): Kernel {
  return (inputs, consts, out, from, to) => {
    const x = inputs[0]!;
    const n = consts[0]!;
    let i = from;
    for (; i < to && i < n - 1; i++) out[i] = NaN;
    for (; i < to; i++) {
      const first = i - n + 1;
      const shift = x[first]!;
      let sum = 0;
      for (let j = first; j <= i; j++) sum += x[j]! - shift;
      const mean = shift + sum / n;
      let dev = 0;
      let dev2 = 0;
      for (let j = first; j <= i; j++) {
        const e = x[j]! - mean;
        dev += e;
        dev2 += e * e;
      }
      out[i] = combine(x[i]!, mean, Math.sqrt(Math.max((dev2 - (dev * dev) / n) / n, 0)), consts);
    }
  };
}
