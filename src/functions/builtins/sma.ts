import type { FunctionModule } from "../module.js";
import { SMA_STATE, smaKernel } from "../shared/sma.js";

export const sma: FunctionModule = {
  name: "sma",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel: smaKernel,
  stateSize: () => SMA_STATE,
  doc: "Arithmetic mean of the last n values.",
  example: "close > sma(200)",
  reference: "TA-Lib SMA; TradingView ta.sma",
  phrases: [
    {
      category: "Moving averages",
      phrase: "above the 200-day moving average",
      query: "close > d::sma(200)",
      aliases: [
        "above the 200 day average",
        "above the 200 dma",
        "above 200 sma",
        "long term uptrend",
      ],
      notes: "Price above the simple average of the last 200 completed daily closes. On a daily query, `close > sma(200)` is the usual form (its average includes the day in progress).",
    },
    {
      category: "Moving averages",
      phrase: "below the 200-day moving average",
      query: "close < d::sma(200)",
      aliases: [
        "below the 200 day average",
        "below the 200 dma",
        "below 200 sma",
        "long term downtrend",
      ],
      notes: "Price below the simple average of the last 200 completed daily closes.",
    },
    {
      category: "Moving averages",
      phrase: "above the 50-day moving average",
      query: "close > d::sma(50)",
      aliases: [
        "above the 50 day average",
        "above the 50 dma",
        "above 50 sma",
      ],
      notes: "Price above the simple average of the last 50 completed daily closes.",
    },
    {
      category: "Moving averages",
      phrase: "below the 50-day moving average",
      query: "close < d::sma(50)",
      aliases: [
        "below the 50 day average",
        "below the 50 dma",
        "below 50 sma",
      ],
      notes: "Price below the simple average of the last 50 completed daily closes.",
    },
    {
      category: "Moving averages",
      phrase: "50-day average above the 200-day average (golden cross in effect)",
      query: "d::sma(50) > d::sma(200)",
      aliases: [
        "bullish regime",
        "50 above 200",
      ],
      notes: "The state after a golden cross, whenever it happened (the crossover entry matches only the day after it).",
    },
    {
      category: "Moving averages",
      phrase: "rising 50-bar moving average",
      query: "sma(50) > sma(50)[10]",
      aliases: [
        "moving average sloping up",
        "rising average",
      ],
      notes: "The 50-bar SMA is higher than it was 10 bars ago.",
    },
    {
      category: "Moving averages",
      phrase: "bounce off the 200-day moving average",
      query: "low <= d::sma(200) and close > d::sma(200)",
      aliases: [
        "support at the 200 day",
        "tests the 200 dma",
      ],
      notes: "The bar traded down to the 200-day SMA and closed back above it.",
    },
  ],
};
