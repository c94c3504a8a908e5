import type { Kernel } from "../kernel.js";

/**
 * Rate of change in percent, `100 · (src / src[n] − 1)` (TA-Lib ROC and TradingView `ta.roc`
 * are in percent too). NaN for the first n bars; a zero base gives ±Infinity or NaN, which the
 * evaluator treats as "no match".
 */
export const roc: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  for (; i < to; i++) out[i] = 100 * (x[i]! / x[i - n]! - 1);
};
