import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Inverted hammer (TA-Lib CDLINVERTEDHAMMER): a small real body with an upper shadow longer
 * than the body and almost no lower shadow, its body gapping down from the previous candle's
 * body. Buyers tried higher after a fall: a possible bottom once confirmed.
 */
export const inverted_hammer = candlePattern({
  name: "inverted_hammer",
  lookback: periodOf("BodyShort", "ShadowLong", "ShadowVeryShort") + 1,
  test: (c, i) =>
    c.realBody(i) < c.average(S.BodyShort, i) &&
    c.upperShadow(i) > c.average(S.ShadowLong, i) &&
    c.lowerShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.bodyGapDown(i, i - 1),
  doc: "Inverted hammer: small body gapping down from the previous body, upper shadow longer than the body, almost no lower shadow.",
  example: "inverted_hammer and close < sma(20)",
  reference: "TA-Lib CDLINVERTEDHAMMER",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "inverted hammer",
      query: "inverted_hammer",
      notes: "A small body gapping below the previous body with a long upper wick: buyers tried after a fall.",
    },
  ],
});
