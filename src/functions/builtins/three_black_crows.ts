import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Three black crows (TA-Lib CDL3BLACKCROWS): after a white candle, three black candles with
 * falling closes and almost no lower shadows, each opening inside the previous black body,
 * the first closing below the white candle's high.
 */
export const three_black_crows = candlePattern({
  name: "three_black_crows",
  lookback: periodOf("ShadowVeryShort") + 3,
  test: (c, i) =>
    c.isWhite(i - 3) &&
    c.isBlack(i - 2) &&
    c.lowerShadow(i - 2) < c.average(S.ShadowVeryShort, i - 2) &&
    c.isBlack(i - 1) &&
    c.lowerShadow(i - 1) < c.average(S.ShadowVeryShort, i - 1) &&
    c.isBlack(i) &&
    c.lowerShadow(i) < c.average(S.ShadowVeryShort, i) &&
    c.open[i - 1]! < c.open[i - 2]! &&
    c.open[i - 1]! > c.close[i - 2]! &&
    c.open[i]! < c.open[i - 1]! &&
    c.open[i]! > c.close[i - 1]! &&
    c.high[i - 3]! > c.close[i - 2]! &&
    c.close[i - 2]! > c.close[i - 1]! &&
    c.close[i - 1]! > c.close[i]!,
  doc: "Three black crows: after a white candle, three falling black candles, each opening inside the previous body and closing near its low.",
  example: "three_black_crows and close < sma(50)",
  reference: "TA-Lib CDL3BLACKCROWS",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "three black crows",
      query: "three_black_crows",
      notes: "After an up bar, three falling down bars, each opening inside the previous body and closing near its low.",
    },
    {
      category: "Price change and candles",
      phrase: "three red candles",
      query: "close < open and close[1] < open[1] and close[2] < open[2]",
      aliases: ["three down bars in a row", "three red candles in a row"],
      notes: "Any three down bars in a row; three_black_crows is the strict pattern.",
    },
  ],
});
