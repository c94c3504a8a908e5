import type { FunctionModule, Kernel } from "../module.js";
import { isFlat } from "../shared/flat.js";

/**
 * Lambert's commodity channel index: with the typical price tp = (high + low + close)/3,
 * `(tp − sma(tp, n)) / (0.015 · mean |tp − sma(tp, n)|)` over the last n bars. The constant
 * 0.015 puts about three quarters of values between −100 and +100. The mean absolute
 * deviation needs the window's mean first, so each bar is two passes over n typical prices
 * (computed once per bar into scratch buffer 0); no running sum, so no drift. A flat window
 * (n equal typical prices, shared/flat.ts) is undefined: NaN, where TA-Lib writes 0. Flatness
 * is read from the typical prices themselves: their computed mean can be an ulp off them, and
 * the deviation left is rounding over rounding (±66.67 on twenty bars at 0.1 or 3.3).
 * A NaN anywhere in the window makes the value NaN.
 */
const cciKernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const n = consts[0]!;
  const tp = ctx.scratch(0, to);
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  if (i >= to) return;
  for (let j = i - n + 1; j < to; j++) tp[j] = (high[j]! + low[j]! + close[j]!) / 3;
  for (; i < to; i++) {
    const first = i - n + 1;
    let sum = 0;
    for (let j = first; j <= i; j++) sum += tp[j]!;
    const mean = sum / n;
    let dev = 0;
    for (let j = first; j <= i; j++) dev += Math.abs(tp[j]! - mean);
    // dev is NaN when the window holds a NaN.
    out[i] = isFlat(tp, first, i) ? NaN : (tp[i]! - mean) / (0.015 * (dev / n));
  }
};

export const cci: FunctionModule = {
  name: "cci",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([n = 1]) => n - 1,
  lookbackDoc: "n",
  recursive: false,
  // the mean and the deviation are summed afresh over each bar's window: values never depend on the range asked.
  rangeIndependent: true,
  kernel: cciKernel,
  doc: "Commodity channel index: (hlc3 − sma(hlc3, n))/(0.015 · mean absolute deviation of hlc3 over n); undefined on a flat window (n equal typical prices).",
  example: "cci(20) < -100",
  reference: "TA-Lib CCI; windows with no deviation undefined where TA-Lib writes 0",
  phrases: [
    {
      category: "Momentum",
      phrase: "CCI oversold",
      query: "cci(20) < -100",
      aliases: ["commodity channel index below -100"],
      notes: "20-bar commodity channel index below −100: the typical price is far below its mean, in units of its mean deviation.",
    },
    {
      category: "Momentum",
      phrase: "CCI overbought",
      query: "cci(20) > 100",
      aliases: ["commodity channel index above 100"],
      notes: "20-bar CCI above +100.",
    },
  ],
};
