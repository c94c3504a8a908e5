import type { FunctionModule, Kernel } from "../module.js";

/**
 * Rate of change in percent, `100 · (src / src[n] − 1)` (TA-Lib ROC and TradingView `ta.roc`
 * are in percent too). NaN for the first n bars; a zero base gives ±Infinity or NaN, which the
 * evaluator treats as "no match".
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  for (; i < to; i++) out[i] = 100 * (x[i]! / x[i - n]! - 1);
};

export const roc: FunctionModule = {
  name: "roc",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "Rate of change in percent: 100 · (src / src[n] − 1).",
  example: "roc(10) > 5",
  reference: "TA-Lib ROC; TradingView ta.roc",
  phrases: [
    {
      category: "Momentum",
      phrase: "strong rate of change (up more than 5% over 10 bars)",
      query: "roc(10) > 5",
      aliases: [
        "momentum",
        "fast movers",
        "big gainers",
      ],
      notes: "Percent change of the close over the last 10 bars of the query's timeframe is above 5.",
    },
  ],
};
