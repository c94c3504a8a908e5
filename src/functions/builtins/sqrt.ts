import type { FunctionModule, Kernel } from "../module.js";

/**
 * Square root. Defined for x >= 0 (sqrt(0) = 0); a negative x has no real root: NaN,
 * undefined like a division by zero (decisions §1).
 */
const sqrtKernel: Kernel = (inputs, _consts, out, from, to) => {
  const x = inputs[0]!;
  for (let i = from; i < to; i++) {
    const v = x[i]!;
    out[i] = Math.sqrt(v);
  }
};

export const sqrt: FunctionModule = {
  name: "sqrt",
  params: [{ name: "x", kind: "series" }],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: () => 0,
  lookbackDoc: "L(x)",
  recursive: false,
  kernel: sqrtKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Square root; undefined for x < 0.",
  example: "stdev(close, 20) * sqrt(252) > close * 0.4",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "annualised 20-day volatility above 40%",
      query: "stdev(close, 20) * sqrt(252) > close * 0.4",
      aliases: ["annualized volatility"],
      notes: "The 20-bar standard deviation of price scaled by √252 trading days, above 40% of the price (a rough annualised volatility on daily bars).",
    },
  ],
};
