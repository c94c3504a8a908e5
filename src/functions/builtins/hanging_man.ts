import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Hanging man (TA-Lib CDLHANGINGMAN): the hammer's shape — small body, lower shadow longer
 * than the body, almost no upper shadow — with its body at or near the previous candle's
 * high (within 20% of the 5-candle average range): after a rise, a warning of a top.
 */
export const hanging_man = candlePattern({
  name: "hanging_man",
  lookback: periodOf("BodyShort", "ShadowLong", "ShadowVeryShort", "Near") + 1,
  test: (c, i) =>
    c.realBody(i) < c.average(S.BodyShort, i) &&
    c.lowerShadow(i) > c.average(S.ShadowLong, i) &&
    c.upperShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.bodyLow(i) >= c.high[i - 1]! - c.average(S.Near, i - 1),
  doc: "Hanging man: the hammer's shape (small body, long lower shadow, almost no upper shadow) at or near the previous high.",
  example: "hanging_man and close >= highest(high, 20) * 0.99",
  reference: "TA-Lib CDLHANGINGMAN",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "hanging man",
      query: "hanging_man",
      notes: "The hammer's shape at the previous high: after a rise, a warning of a top.",
    },
    {
      category: "Price change and candles",
      phrase: "hanging man after a rally",
      query: "hanging_man and close > sma(20) and rsi(14) > 60",
      notes: "A hanging man above the 20-bar average with RSI above 60.",
    },
  ],
});
