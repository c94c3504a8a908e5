import type { Kernel } from "../module.js";
import { equalRun, nextRun } from "./flat.js";

/**
 * Simple moving average: the arithmetic mean of the last n values, current bar included
 * (TA-Lib SMA, TradingView `ta.sma`). Also serves `avg`. NaN until n values exist and wherever
 * the window holds a NaN.
 *
 * The window sum is kept running from `from − n + 1` so a call over many bars costs O(1) per
 * bar. A plain running sum drifts: after a spike leaves the window the sum keeps the rounding
 * error of the spike's magnitude. The sum is therefore kept as an unevaluated pair `s + c`
 * updated with Knuth's TwoSum (error-free addition), which keeps each mean within a few ulps of
 * a direct sum of the window. Non-finite values (NaN, ±Infinity) are counted instead of summed;
 * while one is in the window the mean is the direct sum, which gives IEEE's answer (NaN or ±∞).
 *
 * Even an exact sum of n equal values, divided by n, rounds (twenty 54321.07 average to
 * 54321.06999999999). The kernel keeps the run of equal values ending at each bar beside the
 * sum (shared/flat.ts), and a window of n equal values has that value as its mean, exactly.
 */
export const smaKernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  if (i >= to) return;

  let s = 0;
  let c = 0;
  let bad = 0;
  let run = equalRun(x, i - 1, n - 1);
  for (let j = i - n + 1; j < i; j++) {
    const v = x[j]!;
    if (v - v !== 0) {
      bad++;
    } else {
      const t = s + v;
      const bp = t - s;
      c += s - (t - bp) + (v - bp);
      s = t;
    }
  }
  for (; i < to; i++) {
    const v = x[i]!;
    if (v - v !== 0) {
      bad++;
    } else {
      const t = s + v;
      const bp = t - s;
      c += s - (t - bp) + (v - bp);
      s = t;
    }
    const first = i - n + 1;
    run = nextRun(x, i, run);
    if (run >= n) {
      out[i] = v;
    } else if (bad === 0) {
      out[i] = (s + c) / n;
    } else {
      let direct = 0;
      for (let j = first; j <= i; j++) direct += x[j]!;
      out[i] = direct / n;
    }
    const w = -x[first]!;
    if (w - w !== 0) {
      bad--;
    } else {
      const t = s + w;
      const bp = t - s;
      c += s - (t - bp) + (w - bp);
      s = t;
    }
  }
};
