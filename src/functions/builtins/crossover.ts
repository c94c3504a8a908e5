import type { FunctionModule, Kernel } from "../module.js";

/**
 * `crossover(a, b)`: 1 when `a > b` on this bar and `a <= b` on the previous one, else 0
 * (TradingView `ta.crossover`). Comparisons with a non-finite operand are false (decisions §1:
 * NaN, or ±Infinity from a division by zero), so a bar where either operand is undefined or
 * infinite, now or before, is 0; bar 0 has no previous bar and is 0.
 */
const kernel: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  let i = from;
  if (i === 0 && i < to) out[i++] = 0;
  for (; i < to; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const px = a[i - 1]!;
    const py = b[i - 1]!;
    // x − x is 0 only for finite x: ±Infinity (a division by zero) fails the comparison like NaN.
    out[i] = x > y && px <= py && x - x + y - y + px - px + py - py === 0 ? 1 : 0;
  }
};

export const crossover: FunctionModule = {
  name: "crossover",
  params: [{ name: "a", kind: "series" }, { name: "b", kind: "series" }],
  result: "boolean",
  column: "number",
  implicit: [],
  extraLookback: () => 1,
  lookbackDoc: "max(L(a), L(b)) + 1",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "True when a > b now and a <= b on the previous bar; false where either is undefined.",
  example: "crossover(ema(close, 9), ema(close, 21))",
  reference: "TradingView ta.crossover",
  phrases: [
    {
      phrase: "close crosses above the previous bar's high",
      query: "crossover(close, high[1])",
      aliases: [
        "breaks above the prior high",
      ],
      notes: "True on the bar where the close moves above the previous bar's high after being at or below it.",
      category: "Highs, lows and breakouts",
    },
  ],
};
