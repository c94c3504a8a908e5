import type { FunctionModule, Kernel } from "../module.js";
import { donchianMid } from "../shared/donchian.js";

/**
 * Ichimoku leading span A (senkou span A, TradingView Ichimoku) as plotted at this bar:
 * (tenkan(conv) + kijun(base))/2 computed disp − 1 bars ago. TradingView plots the span with
 * offset disp − 1, so the cloud edge drawn over the current bar is the one computed that many
 * bars back — the value a chart reader compares price with. Inputs are the implicit
 * [high, low]; consts [conv, base, disp] (9, 26, 26 by default on charts).
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const conv = consts[0]!;
  const base = consts[1]!;
  const shift = consts[2]! - 1;
  const need = Math.max(conv, base) - 1;
  for (let i = from; i < to; i++) {
    const at = i - shift;
    out[i] = at < need ? NaN : (donchianMid(high, low, conv, at) + donchianMid(high, low, base, at)) / 2;
  }
};

export const senkou_a: FunctionModule = {
  name: "senkou_a",
  params: [
    { name: "conv", kind: "length" },
    { name: "base", kind: "length" },
    { name: "disp", kind: "length" },
  ],
  result: "number",
  column: "price",
  implicit: ["high", "low"],
  extraLookback: (k) => Math.max(k[0]!, k[1]!) + k[2]! - 2,
  lookbackDoc: "max(conv, base) + disp − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Ichimoku leading span A as plotted at this bar: (tenkan(conv) + kijun(base))/2 taken disp − 1 bars ago.",
  example: "close > senkou_a(9, 26, 26) and close > senkou_b(52, 26)",
  reference: "TradingView Ichimoku (leading span A, plotted with offset disp − 1)",
  phrases: [
    {
      category: "Trend",
      phrase: "price above the Ichimoku cloud",
      query: "close > max(senkou_a(9, 26, 26), senkou_b(52, 26))",
      aliases: ["above the kumo"],
      notes: "The close is above both cloud edges as TradingView draws them over the current bar (spans computed 25 bars ago).",
    },
    {
      category: "Trend",
      phrase: "bullish Ichimoku cloud (span A above span B)",
      query: "senkou_a(9, 26, 26) > senkou_b(52, 26)",
      notes: "The cloud over the current bar is green: leading span A above leading span B.",
    },
  ],
};
