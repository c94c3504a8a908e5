import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Hammer (TA-Lib CDLHAMMER): a small real body (shorter than the average body of the 10
 * previous candles) with a lower shadow longer than the body, almost no upper shadow (under
 * 10% of the average range), its body at or near the previous candle's low (within 20% of the
 * 5-candle average range). Sellers pushed the price down and buyers took it back: a possible
 * bottom. TA-Lib does not check for a preceding decline; screens add one.
 */
export const hammer = candlePattern({
  name: "hammer",
  lookback: periodOf("BodyShort", "ShadowLong", "ShadowVeryShort", "Near") + 1,
  test: (c, i) =>
    c.realBody(i) < c.average(S.BodyShort, i) &&
    c.lowerShadow(i) > c.average(S.ShadowLong, i) &&
    c.upperShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.bodyLow(i) <= c.low[i - 1]! + c.average(S.Near, i - 1),
  doc: "Hammer: small body, lower shadow longer than the body, almost no upper shadow, body at or near the previous low.",
  example: "hammer and close <= lowest(low, 20) * 1.01",
  reference: "TA-Lib CDLHAMMER",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "hammer candle",
      query: "hammer",
      aliases: ["hammer", "long lower wick", "pin bar"],
      notes: "TA-Lib's hammer: a small body at the previous low with a lower wick longer than the body and almost no upper wick.",
    },
    {
      category: "Price change and candles",
      phrase: "hammer at the 20-bar low",
      query: "hammer and close <= lowest(low, 20) * 1.01",
      aliases: ["hammer at support"],
      notes: "A hammer closing within 1% of the lowest low of the last 20 bars: a possible bottom.",
    },
  ],
});
