import type { FunctionModule, Kernel } from "../module.js";

/**
 * Natural logarithm. Defined for x > 0 only: log(0) would be −Infinity and a negative x has no
 * real logarithm, so both are NaN, undefined like a division by zero (decisions §1).
 */
const logKernel: Kernel = (inputs, _consts, out, from, to) => {
  const x = inputs[0]!;
  for (let i = from; i < to; i++) {
    const v = x[i]!;
    out[i] = v > 0 ? Math.log(v) : NaN;
  }
};

export const log: FunctionModule = {
  name: "log",
  params: [{ name: "x", kind: "series" }],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: () => 0,
  lookbackDoc: "L(x)",
  recursive: false,
  kernel: logKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Natural logarithm; undefined for x <= 0.",
  example: "log(close / close[20]) > 0.1",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "log return over 20 bars above 10%",
      query: "log(close / close[20]) > 0.1",
      aliases: ["log return"],
      notes: "Natural log of the 20-bar price ratio above 0.1 (about +10.5%); log returns add up across periods. Undefined for a ratio ≤ 0.",
    },
  ],
};
