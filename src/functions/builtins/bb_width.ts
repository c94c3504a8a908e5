import type { FunctionModule, Kernel } from "../module.js";
import { windowStatsKernel } from "../shared/window-stats.js";

/**
 * Bollinger band width as a ratio (TradingView `ta.bbw` without its ×100):
 * (upper − lower)/sma = 2k·σ/sma for the bands sma(src, n) ± k·σ, σ the population standard
 * deviation of the last n values. A narrowing width is the "squeeze" traders look for.
 * Undefined where the mean is 0.
 *
 * σ uses the corrected two-pass formula of the bands, so a flat window gives width exactly 0.
 */
const kernel: Kernel = windowStatsKernel((_x, mean, sigma, consts) => (mean === 0 ? NaN : (2 * consts[1]! * sigma) / mean));

export const bb_width: FunctionModule = {
  name: "bb_width",
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
  doc: "Bollinger band width as a ratio: (upper − lower)/sma = 2k · stdev(src, n)/sma(src, n); undefined when the mean is 0.",
  example: "bb_width(20, 2) < 0.05",
  reference: "TradingView ta.bbw (as a ratio, not in percent)",
  phrases: [
    {
      category: "Bollinger bands",
      phrase: "Bollinger squeeze (bands narrower than 5% of price)",
      query: "bb_width(20, 2) < 0.05",
      notes: "The 20-bar, 2σ Bollinger bands are less than 5% of the middle band apart. The width is a ratio, not a percentage.",
    },
    {
      category: "Bollinger bands",
      phrase: "Bollinger bands at their narrowest in 100 bars",
      query: "bb_width(20, 2) <= lowest(bb_width(20, 2), 100)",
      notes: "The band width is the lowest of the last 100 bars: the tightest squeeze in that time.",
    },
  ],
};
