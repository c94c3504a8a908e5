import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Piercing line (TA-Lib CDLPIERCING): a long black candle, then a long white one that opens
 * below the first's low and closes above the midpoint of the first body but below its open.
 * "Long" is longer than the average body of the 10 candles before each.
 */
export const piercing = candlePattern({
  name: "piercing",
  lookback: periodOf("BodyLong") + 1,
  test: (c, i) =>
    c.isBlack(i - 1) &&
    c.realBody(i - 1) > c.average(S.BodyLong, i - 1) &&
    c.isWhite(i) &&
    c.realBody(i) > c.average(S.BodyLong, i) &&
    c.open[i]! < c.low[i - 1]! &&
    c.close[i]! < c.open[i - 1]! &&
    c.close[i]! > c.close[i - 1]! + c.realBody(i - 1) * 0.5,
  doc: "Piercing line: a long black candle, then a long white one opening below its low and closing above its midpoint.",
  example: "piercing and close < sma(50)",
  reference: "TA-Lib CDLPIERCING",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "piercing line",
      query: "piercing",
      aliases: ["piercing pattern"],
      notes: "A long down bar, then a long up bar opening below its low and closing above its midpoint.",
    },
  ],
});
