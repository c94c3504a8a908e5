import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Doji (TA-Lib CDLDOJI): open and close (nearly) equal — the real body is at most 10% of the
 * average high-low range of the 10 previous candles (BodyDoji). Indecision; it says nothing
 * of direction by itself, so screens pair it with where it happens.
 */
export const doji = candlePattern({
  name: "doji",
  lookback: periodOf("BodyDoji"),
  test: (c, i) => c.realBody(i) <= c.average(S.BodyDoji, i),
  doc: "Doji: the real body is at most 10% of the average range of the 10 previous candles (open ≈ close).",
  example: "doji and close <= lowest(low, 20) * 1.01",
  reference: "TA-Lib CDLDOJI",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "doji (tiny body)",
      query: "doji",
      aliases: ["doji", "indecision candle"],
      notes: "TA-Lib's doji: the body is at most a tenth of the average range of the 10 bars before.",
    },
    {
      category: "Price change and candles",
      phrase: "doji at the daily low",
      query: "doji and low <= d::lowest(low, 20)",
      notes: "A doji whose low reaches the lowest daily low of the last 20 completed days.",
    },
  ],
});
