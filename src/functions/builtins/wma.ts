import type { FunctionModule, Kernel } from "../module.js";

/**
 * Linearly weighted moving average: weights 1..n, the newest value weighs n, divided by
 * n(n+1)/2 (TA-Lib WMA, TradingView `ta.wma`). NaN until n values exist and wherever the
 * window holds a NaN.
 *
 * Each bar sums its window directly: the usual O(1) update (numerator += n·x − previous sum)
 * subtracts two large running quantities and inherits their drift, while the evaluator mostly
 * asks for the last one or two bars, where a direct sum costs the same as priming a running one.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const denominator = (n * (n + 1)) / 2;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const first = i - n + 1;
    const v = x[i]!;
    let acc = 0;
    let flat = true;
    for (let j = first; j <= i; j++) {
      const y = x[j]!;
      acc += (j - first + 1) * y;
      if (y !== v) flat = false;
    }
    // A window of equal values: its weighted mean is its value, exactly (decisions §9).
    out[i] = flat ? v : acc / denominator;
  }
};

export const wma: FunctionModule = {
  name: "wma",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "Linearly weighted mean of the last n values (newest weighs n).",
  example: "close > wma(20)",
  reference: "TA-Lib WMA; TradingView ta.wma",
  phrases: [
    {
      category: "Moving averages",
      phrase: "above the 20-bar weighted moving average",
      query: "close > wma(20)",
      aliases: [
        "above the wma",
        "weighted average",
      ],
      notes: "Close above the linearly weighted 20-bar average, which follows price faster than the SMA.",
    },
  ],
};
