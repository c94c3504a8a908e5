import { candlePattern } from "../candles.js";

/**
 * Bullish engulfing (TA-Lib CDLENGULFING, positive): a white candle whose real body engulfs
 * the previous black candle's body — it opens at or below the previous close and closes at or
 * above the previous open, at least one of the two strictly. TA-Lib scores 100 or 80 (when one
 * end matches exactly); either counts.
 */
export const bullish_engulfing = candlePattern({
  name: "bullish_engulfing",
  lookback: 2,
  test: (c, i) =>
    c.isWhite(i) &&
    c.isBlack(i - 1) &&
    ((c.close[i]! >= c.open[i - 1]! && c.open[i]! < c.close[i - 1]!) ||
      (c.close[i]! > c.open[i - 1]! && c.open[i]! <= c.close[i - 1]!)),
  doc: "Bullish engulfing: a white body that engulfs the previous black body.",
  example: "bullish_engulfing and rsi(14) < 40",
  reference: "TA-Lib CDLENGULFING (> 0)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "bullish engulfing candle",
      query: "bullish_engulfing",
      aliases: ["bullish engulfing"],
      notes: "TA-Lib's engulfing, bullish: an up bar whose body covers the body of the previous down bar.",
    },
    {
      category: "Price change and candles",
      phrase: "bullish engulfing at support",
      query: "bullish_engulfing and low <= lowest(low, 20) * 1.005",
      notes: "A bullish engulfing bar reaching within 0.5% of the 20-bar low.",
    },
  ],
});
