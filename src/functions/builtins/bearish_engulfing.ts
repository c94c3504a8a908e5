import { candlePattern } from "../candles.js";

/**
 * Bearish engulfing (TA-Lib CDLENGULFING, negative): a black candle whose real body engulfs
 * the previous white candle's body — it opens at or above the previous close and closes at or
 * below the previous open, at least one of the two strictly.
 */
export const bearish_engulfing = candlePattern({
  name: "bearish_engulfing",
  lookback: 2,
  test: (c, i) =>
    c.isBlack(i) &&
    c.isWhite(i - 1) &&
    ((c.open[i]! >= c.close[i - 1]! && c.close[i]! < c.open[i - 1]!) ||
      (c.open[i]! > c.close[i - 1]! && c.close[i]! <= c.open[i - 1]!)),
  doc: "Bearish engulfing: a black body that engulfs the previous white body.",
  example: "bearish_engulfing and rsi(14) > 60",
  reference: "TA-Lib CDLENGULFING (< 0)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "bearish engulfing candle",
      query: "bearish_engulfing",
      aliases: ["bearish engulfing"],
      notes: "TA-Lib's engulfing, bearish: a down bar whose body covers the body of the previous up bar.",
    },
  ],
});
