import type { FunctionModule, Kernel } from "../module.js";

/**
 * Percent rank (TradingView `ta.percentrank`): the percentage of the previous n values (the
 * current bar excluded) that are less than or equal to the current value, 0 to 100. A new
 * n-bar high ranks 100; equal values count as at or below, so a flat series ranks 100.
 * Undefined wherever the window or the current value is NaN.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  for (; i < to; i++) {
    const v = x[i]!;
    let below = 0;
    let bad = v !== v;
    for (let j = i - n; j < i; j++) {
      const w = x[j]!;
      if (w <= v) below++;
      else if (w !== w) bad = true;
    }
    out[i] = bad ? NaN : (100 * below) / n;
  }
};

export const percent_rank: FunctionModule = {
  name: "percent_rank",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: [],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Percent rank: the percentage of the previous n values less than or equal to the current one (0–100).",
  example: "percent_rank(100) > 95",
  reference: "TradingView ta.percentrank",
  phrases: [
    {
      category: "Highs, lows and breakouts",
      phrase: "price in the top 5% of the last 100 bars",
      query: "percent_rank(100) > 95",
      aliases: ["percentile rank"],
      notes: "More than 95 of the previous 100 closes are at or below the current close.",
    },
    {
      category: "Ranges and volatility",
      phrase: "volatility at a 1-year low (NATR in its bottom 5%)",
      query: "percent_rank(natr(14), 250) < 5",
      notes: "Fewer than 5% of the last 250 NATR readings are at or below the current one: the quietest market in about a year of daily bars.",
    },
  ],
};
