import type { FunctionModule, Kernel } from "../module.js";
import { EXTREME_STATE, windowExtreme } from "../shared/extreme.js";

/**
 * Highest of the last n values, current bar included (TradingView `ta.highest`, TA-Lib MAX).
 * NaN until n values exist and wherever the window holds a NaN.
 *
 * Keeps the current maximum and where it is; only when that bar leaves the window is the window
 * rescanned (`windowExtreme`, shared/extreme.ts): amortised O(1) per bar on price data,
 * allocation-free, and resumable with a state of four slots where a monotonic deque would carry
 * a buffer.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) =>
  windowExtreme(inputs[0]!, consts[0]!, 1, false, out, from, to, state);

export const highest: FunctionModule = {
  name: "highest",
  params: [{ name: "src", kind: "series", default: "high" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  rangeIndependent: true,
  kernel,
  stateSize: () => EXTREME_STATE,
  doc: "Highest of the last n values, current bar included (source defaults to high).",
  example: "close >= highest(high, 20)",
  reference: "TA-Lib MAX; TradingView ta.highest",
  phrases: [
    {
      category: "Highs, lows and breakouts",
      phrase: "new 52-week high",
      query: "close >= w::highest(high, 52)",
      aliases: [
        "52 week high",
        "yearly high",
        "one year high",
      ],
      notes: "Close at or above the highest high of the last 52 completed weeks.",
    },
    {
      category: "Highs, lows and breakouts",
      phrase: "near the 52-week high (within 5%)",
      query: "close >= w::highest(high, 52) * 0.95",
      aliases: [
        "close to the yearly high",
      ],
      notes: "Close no more than 5% below the highest high of the last 52 completed weeks.",
    },
    {
      category: "Highs, lows and breakouts",
      phrase: "new 20-day high",
      query: "close >= d::highest(high, 20)",
      aliases: [
        "20 day high",
        "monthly high",
      ],
      notes: "Close at or above the highest high of the last 20 completed days.",
    },
    {
      category: "Highs, lows and breakouts",
      phrase: "20-bar breakout",
      query: "close > highest(high, 20)[1]",
      aliases: [
        "donchian breakout",
        "range breakout",
        "breaks resistance",
      ],
      notes: "Close above the highest high of the 20 bars before the latest one.",
    },
  ],
};
