import { CANDLE_SETTINGS as S, candlePattern, periodOf } from "../candles.js";
import type { Candles } from "../candles.js";

/**
 * Harami (TA-Lib CDLHARAMI): a long candle (body longer than the average of the 10 before it)
 * followed by a short one (body at most the average) whose body lies inside the first body —
 * one end may touch it. TA-Lib signs it against the first candle's colour: after a long black
 * candle it is bullish, after a long white one bearish.
 */
export function harami(c: Candles, i: number): boolean {
  return (
    c.realBody(i - 1) > c.average(S.BodyLong, i - 1) &&
    c.realBody(i) <= c.average(S.BodyShort, i) &&
    Math.max(c.close[i]!, c.open[i]!) <= Math.max(c.close[i - 1]!, c.open[i - 1]!) &&
    Math.min(c.close[i]!, c.open[i]!) >= Math.min(c.close[i - 1]!, c.open[i - 1]!)
  );
}

export const HARAMI_LOOKBACK = periodOf("BodyShort", "BodyLong") + 1;

export const bullish_harami = candlePattern({
  name: "bullish_harami",
  lookback: HARAMI_LOOKBACK,
  test: (c, i) => c.isBlack(i - 1) && harami(c, i),
  doc: "Bullish harami: a long black candle, then a short body inside its body.",
  example: "bullish_harami and close < sma(50)",
  reference: "TA-Lib CDLHARAMI (> 0)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "bullish harami",
      query: "bullish_harami",
      aliases: ["inside bar after a long down bar"],
      notes: "A long down bar, then a short body inside its body: selling stalls.",
    },
  ],
});
