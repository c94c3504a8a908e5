import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Marubozu (TA-Lib CDLMARUBOZU, either sign): a long body (longer than the average of the 10
 * previous bodies) with almost no shadows (each under 10% of the average range). White or
 * black: one side held the whole bar.
 */
export const marubozu = candlePattern({
  name: "marubozu",
  lookback: periodOf("BodyLong", "ShadowVeryShort"),
  test: (c, i) =>
    c.realBody(i) > c.average(S.BodyLong, i) &&
    c.upperShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.lowerShadow(i) < c.average(S.ShadowVeryShort, i),
  doc: "Marubozu: a long body with almost no shadows, white or black.",
  example: "marubozu and close > open",
  reference: "TA-Lib CDLMARUBOZU (either sign)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "marubozu",
      query: "marubozu",
      aliases: ["bar without wicks"],
      notes: "A long body with almost no wicks: one side held the whole bar.",
    },
    {
      category: "Price change and candles",
      phrase: "strong bullish bar without wicks",
      query: "marubozu and close > open",
      notes: "A white marubozu: opened at the low, closed at the high, body longer than the recent average.",
    },
  ],
});
