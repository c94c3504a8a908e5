import type { FunctionModule, Kernel } from "../module.js";
import { windowStatsKernel } from "../shared/window-stats.js";

/**
 * Z-score: (src − sma(src, n))/stdev(src, n), how many population standard deviations the
 * current value sits from the mean of the last n values (current bar included). Undefined where
 * the window is flat (σ = 0), and for n = 1.
 *
 * Mean and σ are computed two-pass (the corrected formula of the Bollinger bands), so a flat
 * window gives σ exactly 0 rather than rounding noise that would make the z-score explode.
 */
const kernel: Kernel = windowStatsKernel((x, mean, sigma) => (sigma === 0 ? NaN : (x - mean) / sigma));

export const zscore: FunctionModule = {
  name: "zscore",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Z-score: (src − sma(src, n)) / stdev(src, n); undefined when the window is flat.",
  example: "zscore(20) < -2",
  reference: "(src − sma(src, n)) / stdev(src, n), population σ as TradingView ta.stdev",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "price two standard deviations below its 20-bar mean",
      query: "zscore(20) < -2",
      aliases: ["z-score below -2"],
      notes: "The close's z-score over 20 bars is below −2: statistically stretched to the downside. Undefined on a flat window.",
    },
    {
      category: "Volume",
      phrase: "volume spike (volume z-score above 3)",
      query: "zscore(volume, 20) > 3",
      notes: "The latest volume is more than 3 standard deviations above its 20-bar mean.",
    },
  ],
};
