import { type Kernel, resumes } from "../module.js";

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
 * A window of equal values (a run of n equal bars, counted as it goes) has its value as mean
 * exactly, where a sum of twenty 54321.07 divided by 20 is 54321.06999999999 (decisions §9).
 *
 * Resumable (`SMA_STATE` slots): the running sum, carried within a primed block.
 */
export const smaKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  let s = 0;
  let c = 0;
  let bad = 0;
  // How many bars in a row, up to the current one, hold the same value.
  let run = 0;
  if (resumes(state, from)) {
    s = state![1]!;
    c = state![2]!;
    bad = state![3]!;
    run = state![4]!;
  } else {
    for (; i < to && i < n - 1; i++) out[i] = NaN;
    if (i >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    for (let j = i - n + 1; j < i; j++) {
      const v = x[j]!;
      run = j > i - n + 1 && v === x[j - 1] ? run + 1 : 1;
      if (v - v !== 0) {
        bad++;
      } else {
        const t = s + v;
        const bp = t - s;
        c += s - (t - bp) + (v - bp);
        s = t;
      }
    }
  }
  for (; i < to; i++) {
    const v = x[i]!;
    // (n = 1: every window is flat, and x[i − 1] is outside it.)
    run = n > 1 && v === x[i - 1] ? run + 1 : 1;
    if (v - v !== 0) {
      bad++;
    } else {
      const t = s + v;
      const bp = t - s;
      c += s - (t - bp) + (v - bp);
      s = t;
    }
    const first = i - n + 1;
    if (run >= n) {
      // A flat window: its mean is its value, exactly.
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
  if (state !== undefined) {
    state[0] = to;
    state[1] = s;
    state[2] = c;
    state[3] = bad;
    state[4] = run;
  }
};

/** Slots of `smaKernel`'s state: the bar, the window sum as s + c, the non-finite values in the window, the run of equal values. */
export const SMA_STATE = 5;
