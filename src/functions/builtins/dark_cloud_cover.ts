import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";

/**
 * Dark cloud cover (TA-Lib CDLDARKCLOUDCOVER, penetration 0.5): a long white candle, then a
 * black one that opens above the first's high and closes below the midpoint of the first body
 * but above its open.
 */
const PENETRATION = 0.5;

export const dark_cloud_cover = candlePattern({
  name: "dark_cloud_cover",
  lookback: periodOf("BodyLong") + 1,
  test: (c, i) =>
    c.isWhite(i - 1) &&
    c.realBody(i - 1) > c.average(S.BodyLong, i - 1) &&
    c.isBlack(i) &&
    c.open[i]! > c.high[i - 1]! &&
    c.close[i]! > c.open[i - 1]! &&
    c.close[i]! < c.close[i - 1]! - c.realBody(i - 1) * PENETRATION,
  doc: "Dark cloud cover: a long white candle, then a black one opening above its high and closing below its midpoint.",
  example: "dark_cloud_cover and close > sma(50)",
  reference: "TA-Lib CDLDARKCLOUDCOVER (penetration 0.5)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "dark cloud cover",
      query: "dark_cloud_cover",
      notes: "A long up bar, then a down bar opening above its high and closing below its midpoint.",
    },
  ],
});
