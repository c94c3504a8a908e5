import type { FunctionModule, Kernel } from "../module.js";

/**
 * `crossunder(a, b)`: 1 when `a < b` on this bar and `a >= b` on the previous one, else 0
 * (TradingView `ta.crossunder`). Non-finite operands (NaN, ±Infinity) and bar 0 give 0, as for crossover.
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
    out[i] = x < y && px >= py && x - x + y - y + px - px + py - py === 0 ? 1 : 0;
  }
};

export const crossunder: FunctionModule = {
  name: "crossunder",
  params: [{ name: "a", kind: "series" }, { name: "b", kind: "series" }],
  result: "boolean",
  column: "number",
  implicit: [],
  extraLookback: () => 1,
  lookbackDoc: "max(L(a), L(b)) + 1",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "True when a < b now and a >= b on the previous bar; false where either is undefined.",
  example: "crossunder(ema(close, 9), ema(close, 21))",
  reference: "TradingView ta.crossunder",
  phrases: [
    {
      phrase: "close crosses below the previous bar's low",
      query: "crossunder(close, low[1])",
      aliases: [
        "breaks below the prior low",
      ],
      notes: "True on the bar where the close moves below the previous bar's low after being at or above it.",
      category: "Highs, lows and breakouts",
    },
  ],
};
