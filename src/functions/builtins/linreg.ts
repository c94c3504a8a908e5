import type { FunctionModule, Kernel } from "../module.js";
import { leastSquares } from "../shared/regression.js";

/**
 * Linear regression value (TA-Lib LINEARREG): the least-squares line through the last n values,
 * evaluated at the latest bar; see `shared/regression.ts` for how it is computed exactly.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  leastSquares(inputs[0]!, consts[0]!, false, out, from, to);
};

export const linreg: FunctionModule = {
  name: "linreg",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
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
  doc: "Linear regression value: the least-squares line through the last n values, evaluated at the latest bar.",
  example: "close > linreg(20)",
  reference: "TA-Lib LINEARREG",
  phrases: [
    {
      category: "Trend",
      phrase: "price above its linear regression line",
      query: "close > linreg(20)",
      notes: "Close above the value of the 20-bar least-squares line at the latest bar (the end of the regression channel's centre line).",
    },
  ],
};
