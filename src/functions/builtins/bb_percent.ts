import type { FunctionModule, Kernel } from "../module.js";
import { windowStatsKernel } from "../shared/window-stats.js";

/**
 * Bollinger %b: (src − lower)/(upper − lower) with the bands sma ± k·σ of `bb_upper` /
 * `bb_lower` (σ the population standard deviation over n): 0 on the lower band, 1 on the upper,
 * 0.5 on the middle. The band width upper − lower is 2kσ, computed as such; where it is 0 (a
 * flat window, or k = 0) %b is undefined.
 *
 * σ uses the corrected two-pass formula, as the bands do, so a flat window gives exactly 0
 * rather than the rounding noise of E[x²] − E[x]².
 */
const kernel: Kernel = windowStatsKernel((x, mean, sigma, consts) => {
  const k = consts[1]!;
  const width = 2 * k * sigma;
  return width === 0 ? NaN : (x - (mean - k * sigma)) / width;
});

export const bb_percent: FunctionModule = {
  name: "bb_percent",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
    { name: "k", kind: "number" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: (c) => c[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Bollinger %b: (src − lower)/(upper − lower) for the bands sma(src, n) ± k·stdev(src, n); 0 at the lower band, 1 at the upper; undefined when the bands meet.",
  example: "bb_percent(20, 2) < 0",
  reference: "TradingView %b (Bollinger Bands %B)",
  phrases: [
    {
      category: "Bollinger bands",
      phrase: "price below the lower Bollinger band (%b under 0)",
      query: "bb_percent(20, 2) < 0",
      aliases: ["percent b below 0"],
      notes: "%b below 0 means the close is under the lower 20-bar, 2σ band; 1 is the upper band, 0.5 the middle.",
    },
    {
      category: "Bollinger bands",
      phrase: "price in the top of the Bollinger range",
      query: "bb_percent(20, 2) > 0.8",
      notes: "%b above 0.8: the close is in the top fifth of the distance between the bands.",
    },
  ],
};
