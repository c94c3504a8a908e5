import type { FunctionModule, Kernel } from "../module.js";
import { EXTREME_STATE, windowExtreme } from "../shared/extreme.js";

/**
 * Lowest of the last n values, current bar included (TradingView `ta.lowest`, TA-Lib MIN).
 * NaN until n values exist and wherever the window holds a NaN. Same rescan-on-expiry scheme
 * as `highest`.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) =>
  windowExtreme(inputs[0]!, consts[0]!, -1, false, out, from, to, state);

export const lowest: FunctionModule = {
  name: "lowest",
  params: [{ name: "src", kind: "series", default: "low" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  rangeIndependent: true,
  kernel,
  stateSize: () => EXTREME_STATE,
  doc: "Lowest of the last n values, current bar included (source defaults to low).",
  example: "close <= lowest(low, 20)",
  reference: "TA-Lib MIN; TradingView ta.lowest",
  phrases: [
    {
      category: "Highs, lows and breakouts",
      phrase: "new 52-week low",
      query: "close <= w::lowest(low, 52)",
      aliases: [
        "52 week low",
        "yearly low",
        "one year low",
      ],
      notes: "Close at or below the lowest low of the last 52 completed weeks.",
    },
    {
      category: "Highs, lows and breakouts",
      phrase: "20-bar breakdown",
      query: "close < lowest(low, 20)[1]",
      aliases: [
        "donchian breakdown",
        "range breakdown",
        "breaks support",
      ],
      notes: "Close below the lowest low of the 20 bars before the latest one.",
    },
    {
      category: "Ranges and volatility",
      phrase: "narrowest range in 7 bars (NR7)",
      query: "high - low <= lowest(high - low, 7)",
      aliases: [
        "nr7",
        "narrow range",
      ],
      notes: "The latest bar's high–low range is the smallest of the last 7 bars.",
    },
    {
      category: "Ranges and volatility",
      phrase: "near the bottom of its 20-day range",
      query: "close <= d::lowest(low, 20) * 1.02",
      aliases: [
        "near support",
        "near the 20 day low",
      ],
      notes: "Close within 2% of the lowest low of the last 20 completed days.",
    },
  ],
};
