import { candlePattern } from "../candles.js";
import { harami, HARAMI_LOOKBACK } from "./bullish_harami.js";

/** Bearish harami (TA-Lib CDLHARAMI, negative): a long white candle, then a short body inside its body. */
export const bearish_harami = candlePattern({
  name: "bearish_harami",
  lookback: HARAMI_LOOKBACK,
  test: (c, i) => c.isWhite(i - 1) && harami(c, i),
  doc: "Bearish harami: a long white candle, then a short body inside its body.",
  example: "bearish_harami and close > sma(50)",
  reference: "TA-Lib CDLHARAMI (< 0)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "bearish harami",
      query: "bearish_harami",
      aliases: ["inside bar after a long up bar"],
      notes: "A long up bar, then a short body inside its body: buying stalls.",
    },
  ],
});
