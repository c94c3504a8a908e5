import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Evening star (TA-Lib CDLEVENINGSTAR, penetration 0.3): a long white candle; a short one
 * whose body gaps up above it; a black candle, not short, closing more than 30% of the way
 * down into the first body. A three-candle top.
 */
const PENETRATION = 0.3;

export const evening_star = candlePattern({
  name: "evening_star",
  lookback: periodOf("BodyShort", "BodyLong") + 2,
  test: (c, i) =>
    c.realBody(i - 2) > c.average(S.BodyLong, i - 2) &&
    c.isWhite(i - 2) &&
    c.realBody(i - 1) <= c.average(S.BodyShort, i - 1) &&
    c.bodyGapUp(i - 1, i - 2) &&
    c.realBody(i) > c.average(S.BodyShort, i) &&
    c.isBlack(i) &&
    c.close[i]! < c.close[i - 2]! - c.realBody(i - 2) * PENETRATION,
  doc: "Evening star: a long white candle, a short body gapping above it, then a black candle closing well into the first body.",
  example: "evening_star and d::rsi(14) > 60",
  reference: "TA-Lib CDLEVENINGSTAR (penetration 0.3)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "evening star",
      query: "evening_star",
      notes: "Three bars: a long up bar, a small body gapping above it, a down bar closing well into the first body.",
    },
  ],
});
