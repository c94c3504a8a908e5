import type { FunctionModule, Kernel } from "../module.js";
import { bands } from "../shared/bands.js";

/** Population standard deviation of the last n values (divide by n); see `bands`. */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  bands(inputs[0]!, consts[0]!, 0, 1, out, from, to);
};

export const stdev: FunctionModule = {
  name: "stdev",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Population standard deviation of the last n values.",
  example: "stdev(20) < close * 0.005",
  reference: "TA-Lib STDDEV (population); TradingView ta.stdev",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "volatile (standard deviation above 3% of price)",
      query: "stdev(20) > close * 0.03",
      aliases: [
        "high volatility",
        "choppy",
      ],
      notes: "The population standard deviation of the last 20 closes exceeds 3% of the price.",
    },
  ],
};
