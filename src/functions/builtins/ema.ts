import { convergenceBars, type FunctionModule, type Kernel, resumes } from "../module.js";
import { windowMean } from "../shared/flat.js";

/**
 * Exponential moving average, alpha = 2/(n+1), seeded with the SMA of the first n values
 * (TA-Lib EMA, technicalindicators EMA, TradingView `ta.ema` docs). Seeding with the first
 * value instead is the classic source of screeners disagreeing with charts. The seed is
 * `windowMean` (shared/flat.ts), so a constant series has its EMA exactly at its value.
 *
 * Recursive: the value at bar i depends on every bar since the input's first defined value f,
 * so the kernel streams over [f, to) and writes [from, to). Leading NaN (the input is itself an
 * indicator still warming up) is skipped: the first EMA is at f + n − 1. A NaN after that
 * poisons the average from there on, as in the references.
 *
 * Resumable: state [bar, ema], carried once the average is seeded.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const alpha = 2 / (n + 1);
  let i: number;
  let e: number;
  if (resumes(state, from)) {
    i = from;
    e = state![1]!;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const seedAt = f + n - 1;
    for (let j = from; j < to && j < seedAt; j++) out[j] = NaN;
    if (seedAt >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    e = windowMean(x, f, n);
    if (seedAt >= from) out[seedAt] = e;
    i = seedAt + 1;
    for (; i < from; i++) e += alpha * (x[i]! - e);
  }
  for (; i < to; i++) {
    e += alpha * (x[i]! - e);
    out[i] = e;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = e;
  }
};

/** Slots of the EMA's state: the bar and the average. */
export const EMA_STATE = 2;

export const ema: FunctionModule = {
  name: "ema",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: true,
  warmup: (k) => convergenceBars(2 / (k[0]! + 1)),
  kernel,
  stateSize: () => EMA_STATE,
  doc: "Exponential moving average, alpha = 2/(n+1), seeded with the SMA of the first n values.",
  example: "ema(close, 9) > ema(close, 21)",
  reference: "TA-Lib EMA (SMA-seeded); TradingView ta.ema",
  phrases: [
    {
      category: "Trend",
      phrase: "uptrend",
      query: "close > ema(20) and ema(20) > ema(50)",
      aliases: [
        "trending up",
        "bullish trend",
      ],
      notes: "Price above a rising stack of the 20- and 50-bar EMAs on the query's timeframe.",
    },
    {
      category: "Trend",
      phrase: "downtrend",
      query: "close < ema(20) and ema(20) < ema(50)",
      aliases: [
        "trending down",
        "bearish trend",
      ],
      notes: "Price below a falling stack of the 20- and 50-bar EMAs on the query's timeframe.",
    },
    {
      category: "Pullbacks",
      phrase: "pullback in an uptrend",
      query: "ema(20) > ema(50) and close < ema(20) and close > ema(50)",
      aliases: [
        "dip in an uptrend",
        "retracement",
      ],
      notes: "The trend is up (EMA 20 above EMA 50) and price has pulled back between the two averages.",
    },
    {
      category: "Pullbacks",
      phrase: "pullback to the 20 EMA",
      query: "ema(20) > ema(50) and low <= ema(20) and close > ema(20)",
      aliases: [
        "touches the 20 ema",
        "retest of the 20 ema",
      ],
      notes: "In an uptrend, the bar touched the 20-bar EMA and closed back above it.",
    },
    {
      category: "Across timeframes",
      phrase: "4-hour and daily trends both up",
      query: "h4::ema(20) > h4::ema(50) and d::ema(20) > d::ema(50)",
      aliases: [
        "multi timeframe uptrend",
        "trends aligned",
      ],
      notes: "The 20-bar EMA is above the 50-bar EMA on both the last completed 4-hour bar and the last completed day.",
    },
    {
      category: "Across timeframes",
      phrase: "daily uptrend",
      query: "d::close > d::ema(20) and d::ema(20) > d::ema(50)",
      aliases: [
        "daily trend up",
        "uptrend on the daily chart",
      ],
      notes: "On the last completed day: close above EMA 20, EMA 20 above EMA 50.",
    },
    {
      category: "Across timeframes",
      phrase: "weekly uptrend",
      query: "w::close > w::ema(10) and w::ema(10) > w::ema(30)",
      aliases: [
        "weekly trend up",
        "uptrend on the weekly chart",
      ],
      notes: "On the last completed week: close above the 10-week EMA, which is above the 30-week EMA.",
    },
  ],
};
