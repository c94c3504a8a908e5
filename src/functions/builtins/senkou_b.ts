import type { FunctionModule, Kernel } from "../module.js";
import { shiftedMid } from "../shared/donchian.js";

/**
 * Ichimoku leading span B (senkou span B, TradingView Ichimoku) as plotted at this bar: the
 * midpoint of the n-bar high–low range computed disp − 1 bars ago (TradingView plots it with
 * offset disp − 1). Inputs are the implicit [high, low]; consts [n, disp] (52, 26 on charts).
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  shiftedMid(inputs[0]!, inputs[1]!, consts[0]!, consts[1]! - 1, out, from, to);
};

export const senkou_b: FunctionModule = {
  name: "senkou_b",
  params: [
    { name: "n", kind: "length" },
    { name: "disp", kind: "length" },
  ],
  result: "number",
  column: "price",
  implicit: ["high", "low"],
  extraLookback: (k) => k[0]! + k[1]! - 2,
  lookbackDoc: "n + disp − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Ichimoku leading span B as plotted at this bar: (highest(high, n) + lowest(low, n))/2 taken disp − 1 bars ago.",
  example: "close < min(senkou_a(9, 26, 26), senkou_b(52, 26))",
  reference: "TradingView Ichimoku (leading span B, plotted with offset disp − 1)",
  phrases: [
    {
      category: "Trend",
      phrase: "price below the Ichimoku cloud",
      query: "close < min(senkou_a(9, 26, 26), senkou_b(52, 26))",
      aliases: ["below the kumo"],
      notes: "The close is below both cloud edges as plotted over the current bar: a bearish Ichimoku reading.",
    },
  ],
};
