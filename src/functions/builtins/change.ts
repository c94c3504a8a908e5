import type { FunctionModule, Kernel } from "../module.js";

/** `change(src, n) = src − src[n]`: the difference from n bars ago; NaN for the first n bars. */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  for (; i < to; i++) out[i] = x[i]! - x[i - n]!;
};

export const change: FunctionModule = {
  name: "change",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "Difference from n bars ago: src − src[n].",
  example: "change(close, 5) > 0",
  reference: "TradingView ta.change",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "daily close higher than a week ago",
      query: "d::change(close, 7) > 0",
      aliases: [
        "up on the week",
        "week over week gain",
      ],
      notes: "The last completed daily close is above the daily close 7 days before it.",
    },
  ],
};
