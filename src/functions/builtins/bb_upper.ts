import type { FunctionModule, Kernel } from "../module.js";
import { bands } from "../shared/bands.js";

/** Upper Bollinger band: `sma(src, n) + k · stdev(src, n)`, stdev population; consts [n, k]. */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  bands(inputs[0]!, consts[0]!, 1, consts[1]!, out, from, to);
};

export const bb_upper: FunctionModule = {
  name: "bb_upper",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }, { name: "k", kind: "number" }],
  result: "number",
  column: "price",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Upper Bollinger band: sma(src, n) + k · stdev(src, n).",
  example: "close > bb_upper(20, 2)",
  reference: "Bollinger; TA-Lib BBANDS upper",
  phrases: [
    {
      category: "Bollinger bands",
      phrase: "close above the upper Bollinger band",
      query: "close > bb_upper(20, 2)",
      aliases: [
        "bollinger breakout",
        "above the upper band",
      ],
      notes: "Close above SMA 20 + 2 standard deviations.",
    },
  ],
};
