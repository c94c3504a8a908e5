import type { FunctionModule, Kernel } from "../module.js";
import { shiftedMid } from "../shared/donchian.js";

/**
 * Ichimoku conversion line (tenkan-sen, TradingView Ichimoku): the midpoint of the last n bars'
 * high–low range (9 by default on charts). Inputs are the implicit [high, low].
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  shiftedMid(inputs[0]!, inputs[1]!, consts[0]!, 0, out, from, to);
};

export const tenkan: FunctionModule = {
  name: "tenkan",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "price",
  implicit: ["high", "low"],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "n",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Ichimoku conversion line (tenkan-sen): (highest(high, n) + lowest(low, n))/2.",
  example: "tenkan(9) > kijun(26)",
  reference: "TradingView Ichimoku (conversion line)",
  phrases: [
    {
      category: "Trend",
      phrase: "Ichimoku tenkan above kijun (bullish TK)",
      query: "tenkan(9) > kijun(26)",
      aliases: ["tk bullish"],
      notes: "The Ichimoku conversion line (9) is above the base line (26): short-term momentum above the medium-term equilibrium.",
    },
    {
      category: "Trend",
      phrase: "Ichimoku TK cross up",
      query: "crossover(tenkan(9), kijun(26))",
      aliases: ["tenkan kijun cross"],
      notes: "The conversion line crossed above the base line on the latest bar, Ichimoku's classic buy signal.",
    },
  ],
};
