/**
 * The composite part of the phrase reference: entries that combine several built-ins (or none).
 * An entry about one function lives in that function's module (`src/functions/builtins/`),
 * and `PHRASES` (./index.ts) merges both by category. The phrase reference: how screener
 * vocabulary is written in XQL. Each `query` is a condition
 * fragment, preceded by any `let` lines it needs, that validates when written after a `market`
 * and a `timeframe` setting. Unprefixed expressions read the query's own timeframe; `d::`,
 * `h4::` and `w::` read completed daily, 4-hour and weekly bars.
 *
 * `let` names are unique across the reference, so any two entries can be combined: their `let`
 * lines first, then their conditions joined with `and`.
 */
import type { PhraseEntry } from "./index.js";

export const COMPOSITE_PHRASES: readonly PhraseEntry[] = [
  // ---- Momentum (RSI, rate of change) ----
  {
    category: "Momentum",
    phrase: "leaving oversold (RSI crosses back above 30)",
    query: "crossover(rsi(14), 30)",
    aliases: ["rsi crosses above 30", "oversold bounce", "exits oversold"],
    notes: "True on the bar where RSI closes above 30 after being at or below 30 on the bar before.",
  },
  {
    category: "Momentum",
    phrase: "leaving overbought (RSI crosses back below 70)",
    query: "crossunder(rsi(14), 70)",
    aliases: ["rsi crosses below 70", "exits overbought"],
    notes: "True on the bar where RSI closes below 70 after being at or above 70 on the bar before.",
  },
  // ---- Moving averages ----
  {
    category: "Moving averages",
    phrase: "golden cross",
    query: "d::crossover(sma(50), sma(200))",
    aliases: ["50 day crosses above 200 day", "bullish cross"],
    notes:
      "The daily 50-day SMA crossed above the 200-day SMA on the last completed day. The d:: prefix evaluates the whole crossover on daily bars, so it stays true until the next day completes; crossover(d::sma(50), d::sma(200)) would be true only on the first base bar after the daily close.",
  },
  {
    category: "Moving averages",
    phrase: "death cross",
    query: "d::crossunder(sma(50), sma(200))",
    aliases: ["50 day crosses below 200 day", "bearish cross"],
    notes: "The daily 50-day SMA crossed below the 200-day SMA on the last completed day.",
  },
  {
    category: "Moving averages",
    phrase: "price crosses above its 20-bar average",
    query: "crossover(close, sma(20))",
    aliases: ["reclaims the 20 sma", "crosses above moving average"],
    notes: "Close above the 20-bar SMA now, at or below it on the bar before.",
  },
  {
    category: "Moving averages",
    phrase: "price crosses below its 20-bar average",
    query: "crossunder(close, sma(20))",
    aliases: ["loses the 20 sma", "crosses below moving average"],
    notes: "Close below the 20-bar SMA now, at or above it on the bar before.",
  },
  {
    category: "Moving averages",
    phrase: "fast EMA crosses above slow EMA (9/21)",
    query: "crossover(ema(9), ema(21))",
    aliases: ["ema crossover", "bullish ema cross", "9 ema crosses above 21 ema"],
    notes: "The 9-bar EMA crossed above the 21-bar EMA on the latest bar.",
  },
  {
    category: "Moving averages",
    phrase: "fast EMA crosses below slow EMA (9/21)",
    query: "crossunder(ema(9), ema(21))",
    aliases: ["ema crossunder", "bearish ema cross", "9 ema crosses below 21 ema"],
    notes: "The 9-bar EMA crossed below the 21-bar EMA on the latest bar.",
  },
  {
    category: "Moving averages",
    phrase: "overextended above the 20 EMA",
    query: "close > ema(20) + atr(14) * 2",
    aliases: ["stretched", "extended", "far above the average"],
    notes: "Close more than two average true ranges above the 20-bar EMA: a move that often pauses or reverts.",
  },
  // ---- Trend ----
  {
    category: "Trend",
    phrase: "strong uptrend (stacked moving averages)",
    query: "close > ema(20) and ema(20) > ema(50) and ema(50) > sma(200)",
    aliases: ["moving averages stacked", "perfect order"],
    notes: "Close > EMA 20 > EMA 50 > SMA 200: every average in bullish order.",
  },
  {
    category: "Trend",
    phrase: "higher high and higher low",
    query: "high > high[1] and low > low[1]",
    aliases: ["higher highs", "higher lows"],
    notes: "The latest bar made both a higher high and a higher low than the bar before.",
  },
  {
    category: "Trend",
    phrase: "three higher closes in a row",
    query: "close > close[1] and close[1] > close[2] and close[2] > close[3]",
    aliases: ["three up bars", "consecutive gains", "winning streak"],
    notes: "Each of the last three bars closed above the one before.",
  },
  {
    category: "Trend",
    phrase: "three lower closes in a row",
    query: "close < close[1] and close[1] < close[2] and close[2] < close[3]",
    aliases: ["three down bars", "consecutive losses", "losing streak"],
    notes: "Each of the last three bars closed below the one before.",
  },

  // ---- Pullbacks ----
  {
    category: "Pullbacks",
    phrase: "oversold dip in a daily uptrend",
    query: "rsi(14) < 30 and d::close > d::sma(200)",
    aliases: ["buy the dip", "oversold pullback", "oversold in an uptrend"],
    notes: "Oversold on the query's timeframe while the last daily close is above its 200-day SMA.",
  },
  {
    category: "Pullbacks",
    phrase: "pullback with RSI cooling in an uptrend",
    query: "ema(50) > sma(200) and rsi(14) < 45 and close > ema(50)",
    aliases: ["shallow pullback", "rsi pullback"],
    notes: "A milder dip: momentum has cooled below 45 while price holds above a rising 50-bar EMA.",
  },

  // ---- MACD ----
  {
    category: "MACD",
    phrase: "MACD bullish crossover",
    query: "crossover(macd(12, 26), macd_signal(12, 26, 9))",
    aliases: ["macd crosses above signal", "macd buy signal"],
    notes: "The MACD line (EMA 12 − EMA 26) crossed above its 9-bar signal line on the latest bar.",
  },
  {
    category: "MACD",
    phrase: "MACD bearish crossover",
    query: "crossunder(macd(12, 26), macd_signal(12, 26, 9))",
    aliases: ["macd crosses below signal", "macd sell signal"],
    notes: "The MACD line crossed below its signal line on the latest bar.",
  },
  {
    category: "MACD",
    phrase: "MACD histogram turns positive",
    query: "crossover(macd_hist(12, 26, 9), 0)",
    aliases: ["macd histogram crosses zero", "histogram flips positive"],
    notes: "The histogram (MACD − signal) crossed above zero on the latest bar.",
  },
  {
    category: "MACD",
    phrase: "daily MACD above its signal line",
    query: "d::macd(12, 26) > d::macd_signal(12, 26, 9)",
    aliases: ["daily macd bullish"],
    notes: "On the last completed day, the MACD line is above its signal line.",
  },

  // ---- Bollinger bands ----
  {
    category: "Bollinger bands",
    phrase: "back inside the lower Bollinger band",
    query: "crossover(close, bb_lower(20, 2))",
    aliases: ["bollinger reversal", "re-enters the band"],
    notes: "Close crossed back above the lower band after closing at or below it: a mean-reversion signal.",
  },
  {
    category: "Bollinger bands",
    phrase: "Bollinger squeeze",
    query: "let bbwidth = bb_upper(20, 2) - bb_lower(20, 2)\nbbwidth <= lowest(bbwidth, 120) * 1.1",
    aliases: ["band squeeze", "bands narrowing", "low volatility squeeze"],
    notes: "Band width within 10% of its narrowest of the last 120 bars: volatility has contracted.",
  },

  // ---- Highs, lows and breakouts ----
  {
    category: "Highs, lows and breakouts",
    phrase: "above yesterday's high",
    query: "close > d::high",
    aliases: ["breaks the previous day high", "above prior day high"],
    notes: "Close above the high of the last completed day.",
  },
  {
    category: "Highs, lows and breakouts",
    phrase: "below yesterday's low",
    query: "close < d::low",
    aliases: ["breaks the previous day low", "below prior day low"],
    notes: "Close below the low of the last completed day.",
  },

  // ---- Gaps ----
  {
    category: "Gaps",
    phrase: "gap up",
    query: "open > high[1]",
    aliases: ["gapped up", "opening gap up"],
    notes: "The latest bar opened above the previous bar's high. Crypto trades around the clock, so gaps are rarer than in sessions markets.",
  },
  {
    category: "Gaps",
    phrase: "gap down",
    query: "open < low[1]",
    aliases: ["gapped down", "opening gap down"],
    notes: "The latest bar opened below the previous bar's low.",
  },
  {
    category: "Gaps",
    phrase: "gap up of more than 1%",
    query: "open > high[1] * 1.01",
    aliases: ["big gap up"],
    notes: "The latest bar opened more than 1% above the previous bar's high.",
  },
  {
    category: "Gaps",
    phrase: "daily gap up",
    query: "d::open > d::high[1]",
    aliases: ["gap up on the daily chart"],
    notes: "The last completed day opened above the high of the day before it.",
  },

  // ---- Ranges and volatility ----
  {
    category: "Ranges and volatility",
    phrase: "tight range (consolidation)",
    query: "highest(high, 20) - lowest(low, 20) < close * 0.03",
    aliases: ["consolidating", "sideways", "flat base"],
    notes: "The last 20 bars stayed within a band of 3% of the price. Widen the percentage for volatile markets or longer timeframes.",
  },
  {
    category: "Ranges and volatility",
    phrase: "inside bar",
    query: "high < high[1] and low > low[1]",
    aliases: ["inside day"],
    notes: "The latest bar's range lies inside the previous bar's range.",
  },
  {
    category: "Ranges and volatility",
    phrase: "outside bar",
    query: "high > high[1] and low < low[1]",
    aliases: ["outside day"],
    notes: "The latest bar's range engulfs the previous bar's range.",
  },
  {
    category: "Ranges and volatility",
    phrase: "volatility contracting (ATR below its average)",
    query: "atr(14) < avg(atr(14), 50) * 0.75",
    aliases: ["low volatility", "quiet market"],
    notes: "The 14-bar ATR is below three quarters of its own 50-bar average.",
  },
  {
    category: "Ranges and volatility",
    phrase: "closes near the high of the bar (strong close)",
    query: "close - low >= (high - low) * 0.75",
    aliases: ["strong close", "closes in the upper quarter"],
    notes: "The close is in the top quarter of the bar's high–low range.",
  },

  // ---- Price change and candles ----
  {
    category: "Price change and candles",
    phrase: "up more than 5% since yesterday's close",
    query: "close > d::close * 1.05",
    aliases: ["up 5% today", "daily gainers"],
    notes: "Price more than 5% above the last completed daily close.",
  },
  {
    category: "Price change and candles",
    phrase: "down more than 5% since yesterday's close",
    query: "close < d::close * 0.95",
    aliases: ["down 5% today", "daily losers"],
    notes: "Price more than 5% below the last completed daily close.",
  },
  {
    category: "Price change and candles",
    phrase: "up more than 10% since last week's close",
    query: "close > w::close * 1.1",
    aliases: ["weekly gainers", "up 10% this week"],
    notes: "Price more than 10% above the close of the last completed week.",
  },

  // ---- Across timeframes ----
  {
    category: "Across timeframes",
    phrase: "4-hour oversold in a daily uptrend",
    query: "h4::rsi(14) < 30 and d::close > d::sma(50)",
    aliases: ["h4 oversold daily uptrend"],
    notes: "The last completed 4-hour RSI is below 30 while the last daily close is above its 50-day SMA.",
  },
];
