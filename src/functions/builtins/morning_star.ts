import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Morning star (TA-Lib CDLMORNINGSTAR, penetration 0.3): a long black candle; a short one
 * whose body gaps down below it (the star); a white candle, not short, closing more than 30%
 * of the way up into the first body. A three-candle bottom.
 */
const PENETRATION = 0.3;

export const morning_star = candlePattern({
  name: "morning_star",
  lookback: periodOf("BodyShort", "BodyLong") + 2,
  test: (c, i) =>
    c.realBody(i - 2) > c.average(S.BodyLong, i - 2) &&
    c.isBlack(i - 2) &&
    c.realBody(i - 1) <= c.average(S.BodyShort, i - 1) &&
    c.bodyGapDown(i - 1, i - 2) &&
    c.realBody(i) > c.average(S.BodyShort, i) &&
    c.isWhite(i) &&
    c.close[i]! > c.close[i - 2]! + c.realBody(i - 2) * PENETRATION,
  doc: "Morning star: a long black candle, a short body gapping below it, then a white candle closing well into the first body.",
  example: "morning_star and d::rsi(14) < 40",
  reference: "TA-Lib CDLMORNINGSTAR (penetration 0.3)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "morning star",
      query: "morning_star",
      notes: "Three bars: a long down bar, a small body gapping below it, an up bar closing well into the first body.",
    },
    {
      category: "Price change and candles",
      phrase: "morning star with daily RSI low",
      query: "morning_star and d::rsi(14) < 40",
      notes: "A morning star on the base timeframe while the last completed day's RSI is below 40.",
    },
  ],
});
