import type { FunctionModule, Kernel } from "../module.js";
import { leastSquares } from "../shared/regression.js";

/**
 * Slope per bar of the least-squares line through the last n values (TA-Lib LINEARREG_SLOPE),
 * computed two-pass as described in `shared/regression.ts`; 0 for n = 1.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  leastSquares(inputs[0]!, consts[0]!, true, out, from, to);
};

export const linreg_slope: FunctionModule = {
  name: "linreg_slope",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Linear regression slope: change per bar of the least-squares line through the last n values.",
  example: "linreg_slope(20) > 0",
  reference: "TA-Lib LINEARREG_SLOPE",
  phrases: [
    {
      category: "Trend",
      phrase: "price trending up (positive regression slope)",
      query: "linreg_slope(20) > 0",
      aliases: ["positive slope"],
      notes: "The least-squares line through the last 20 closes rises: a statistical uptrend. The slope is in price units per bar.",
    },
    {
      category: "Trend",
      phrase: "regression slope steeper than 0.1% of price per bar",
      query: "linreg_slope(20) > close * 0.001",
      notes: "A strong trend: the 20-bar regression line rises more than 0.1% of the price each bar. Scaling by close makes it comparable across instruments.",
    },
  ],
};
