import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Three white soldiers (TA-Lib CDL3WHITESOLDIERS): three white candles with rising closes and
 * almost no upper shadows; each opens above the previous open and no higher than near the
 * previous close (within 20% of the 5-candle average range); no body is far shorter than the
 * one before it (by 60% of that range or more); the last body is not short.
 */
export const three_white_soldiers = candlePattern({
  name: "three_white_soldiers",
  lookback: periodOf("ShadowVeryShort", "BodyShort", "Far", "Near") + 2,
  test: (c, i) =>
    c.isWhite(i - 2) &&
    c.upperShadow(i - 2) < c.average(S.ShadowVeryShort, i - 2) &&
    c.isWhite(i - 1) &&
    c.upperShadow(i - 1) < c.average(S.ShadowVeryShort, i - 1) &&
    c.isWhite(i) &&
    c.upperShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.close[i]! > c.close[i - 1]! &&
    c.close[i - 1]! > c.close[i - 2]! &&
    c.open[i - 1]! > c.open[i - 2]! &&
    c.open[i - 1]! <= c.close[i - 2]! + c.average(S.Near, i - 2) &&
    c.open[i]! > c.open[i - 1]! &&
    c.open[i]! <= c.close[i - 1]! + c.average(S.Near, i - 1) &&
    c.realBody(i - 1) > c.realBody(i - 2) - c.average(S.Far, i - 2) &&
    c.realBody(i) > c.realBody(i - 1) - c.average(S.Far, i - 1) &&
    c.realBody(i) > c.average(S.BodyShort, i),
  doc: "Three white soldiers: three rising white candles, each opening within the previous body and closing near its high.",
  example: "three_white_soldiers and volume > avg(volume, 20)",
  reference: "TA-Lib CDL3WHITESOLDIERS",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "three white soldiers",
      query: "three_white_soldiers",
      notes: "Three rising up bars, each opening inside the previous body and closing near its high.",
    },
    {
      category: "Price change and candles",
      phrase: "three green candles",
      query: "close > open and close[1] > open[1] and close[2] > open[2]",
      aliases: ["three up bars in a row", "three green candles in a row"],
      notes: "Any three up bars in a row; three_white_soldiers is the strict pattern (rising closes, short upper wicks, opens inside the previous body).",
    },
  ],
});
