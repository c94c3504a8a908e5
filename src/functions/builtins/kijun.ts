import type { FunctionModule, Kernel } from "../module.js";
import { shiftedMid } from "../shared/donchian.js";

/**
 * Ichimoku base line (kijun-sen, TradingView Ichimoku): the midpoint of the last n bars'
 * high–low range (26 by default on charts); the same formula as the conversion line over a
 * longer window. Inputs are the implicit [high, low].
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  shiftedMid(inputs[0]!, inputs[1]!, consts[0]!, 0, out, from, to);
};

export const kijun: FunctionModule = {
  name: "kijun",
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
  doc: "Ichimoku base line (kijun-sen): (highest(high, n) + lowest(low, n))/2.",
  example: "close > kijun(26)",
  reference: "TradingView Ichimoku (base line)",
  phrases: [
    {
      category: "Trend",
      phrase: "price above the Ichimoku base line",
      query: "close > kijun(26)",
      notes: "The close is above the kijun-sen, the midpoint of the 26-bar high–low range.",
    },
  ],
};
