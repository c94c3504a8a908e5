import type { FunctionModule, Kernel } from "../module.js";

/**
 * Sign: −1, 0 or 1. An undefined or infinite x (a division by zero) has no meaningful sign
 * here: NaN, so `sign(a / b) > 0` is false when b = 0. −0 gives 0.
 */
const signKernel: Kernel = (inputs, _consts, out, from, to) => {
  const x = inputs[0]!;
  for (let i = from; i < to; i++) {
    const v = x[i]!;
    out[i] = v - v !== 0 ? NaN : v > 0 ? 1 : v < 0 ? -1 : 0;
  }
};

export const sign: FunctionModule = {
  name: "sign",
  params: [{ name: "x", kind: "series" }],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: () => 0,
  lookbackDoc: "L(x)",
  recursive: false,
  kernel: signKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "−1, 0 or 1 by the sign of x; undefined when x is.",
  example: "sign(change(close, 1)) != sign(change(close[1], 1))",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "direction changed from the previous bar",
      query: "sign(change(close, 1)) != sign(change(close[1], 1))",
      aliases: ["reversal bar", "direction change"],
      notes: "This bar's close moved the other way from the previous bar's (up after down, down after up, or flat after a move).",
    },
  ],
};
