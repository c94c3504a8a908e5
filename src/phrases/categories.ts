/** The groups of the phrase reference (imports nothing, so function modules can name one). */

/** Groups for `docs/phrases.md`, in the order they appear there. */
export const PHRASE_CATEGORIES = [
  "Momentum",
  "Moving averages",
  "Trend",
  "Pullbacks",
  "MACD",
  "Bollinger bands",
  "Volume",
  "Highs, lows and breakouts",
  "Gaps",
  "Ranges and volatility",
  "Price change and candles",
  "Indicators",
  "Across timeframes",
] as const;

/** One of the {@link PHRASE_CATEGORIES}: the group a phrase entry is listed under. */
export type PhraseCategory = (typeof PHRASE_CATEGORIES)[number];

