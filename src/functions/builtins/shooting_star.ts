import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Shooting star (TA-Lib CDLSHOOTINGSTAR): a small real body with an upper shadow longer than
 * the body and almost no lower shadow, its body gapping up from the previous candle's body.
 * Buyers pushed higher and lost it by the close: a possible top.
 */
export const shooting_star = candlePattern({
  name: "shooting_star",
  lookback: periodOf("BodyShort", "ShadowLong", "ShadowVeryShort") + 1,
  test: (c, i) =>
    c.realBody(i) < c.average(S.BodyShort, i) &&
    c.upperShadow(i) > c.average(S.ShadowLong, i) &&
    c.lowerShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.bodyGapUp(i, i - 1),
  doc: "Shooting star: small body gapping up from the previous body, upper shadow longer than the body, almost no lower shadow.",
  example: "shooting_star and close > sma(50)",
  reference: "TA-Lib CDLSHOOTINGSTAR",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "shooting star",
      query: "shooting_star",
      aliases: ["long upper wick at the top"],
      notes: "A small body gapping above the previous body with a long upper wick and almost no lower one: a possible top.",
    },
    {
      category: "Price change and candles",
      phrase: "shooting star at a new high",
      query: "shooting_star and high >= highest(high, 50)",
      notes: "A shooting star that made the highest high of the last 50 bars.",
    },
  ],
});
