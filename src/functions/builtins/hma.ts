import type { FunctionModule, Kernel } from "../module.js";

/**
 * Hull moving average (TradingView `ta.hma`):
 * wma(2·wma(src, ⌊n/2⌋) − wma(src, n), ⌊√n⌋). The difference of the two WMAs extrapolates
 * the half-length average forward by the lag between them, and the short final WMA smooths the
 * result: a fast average with little lag. For n = 1 the half length would be 0; it is taken as
 * 1 there, so hma(src, 1) = src (Pine's `wma` of length 0 is undefined).
 *
 * Windowed: the inner difference is computed into scratch space for the ⌊√n⌋ − 1 bars before
 * `from` and for [from, to), each WMA summed directly (no running numerator to drift).
 */
const kernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const half = Math.max(1, Math.floor(n / 2));
  const s = Math.floor(Math.sqrt(n));
  const first = n + s - 2;
  for (let i = from; i < to && i < first; i++) out[i] = NaN;
  const begin = Math.max(from, first);
  if (begin >= to) return;

  const inner = ctx.scratch(0, to);
  const halfWeights = (half * (half + 1)) / 2;
  const fullWeights = (n * (n + 1)) / 2;
  for (let j = begin - s + 1; j < to; j++) {
    const v = x[j]!;
    let a = 0;
    for (let t = 0; t < half; t++) a += (half - t) * x[j - t]!;
    let b = 0;
    let flat = true;
    for (let t = 0; t < n; t++) {
      const y = x[j - t]!;
      b += (n - t) * y;
      if (y !== v) flat = false;
    }
    // Equal values over the window (which holds the half window too): both means are the value.
    inner[j] = flat ? v : (2 * a) / halfWeights - b / fullWeights;
  }
  const outerWeights = (s * (s + 1)) / 2;
  for (let i = begin; i < to; i++) {
    const v = inner[i]!;
    let acc = 0;
    let flat = true;
    for (let t = 0; t < s; t++) {
      const y = inner[i - t]!;
      acc += (s - t) * y;
      if (y !== v) flat = false;
    }
    out[i] = flat ? v : acc / outerWeights;
  }
};

export const hma: FunctionModule = {
  name: "hma",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! + Math.floor(Math.sqrt(k[0]!)) - 2,
  lookbackDoc: "L(src) + n + ⌊√n⌋ − 2",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Hull moving average: wma(2·wma(src, ⌊n/2⌋) − wma(src, n), ⌊√n⌋).",
  example: "close > hma(20)",
  reference: "TradingView ta.hma",
  phrases: [
    {
      category: "Moving averages",
      phrase: "price above the Hull moving average",
      query: "close > hma(20)",
      aliases: ["above hull ma"],
      notes: "Close above the 20-bar Hull moving average, wma(2·wma(n/2) − wma(n), √n): smooth with very little lag.",
    },
    {
      category: "Moving averages",
      phrase: "Hull MA turning up",
      query: "hma(20) > hma(20)[1]",
      notes: "The 20-bar Hull moving average rose on the last bar, a common early trend-change signal.",
    },
  ],
};
