import { convergenceBars, type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * Wilder's RSI (TA-Lib RSI, TradingView `ta.rsi`): with changes d[i] = src[i] − src[i−1],
 * gain = max(d, 0) and loss = max(−d, 0), the average gain and loss are seeded with the simple
 * mean of the first n of them and then smoothed with Wilder's RMA (alpha = 1/n);
 * RSI = 100 − 100 / (1 + avgGain/avgLoss), exactly 100 when the average loss is 0 (a flat
 * series included). A plain mean instead of the RMA is the usual reason screeners disagree
 * with charts. Never rounded (technicalindicators rounds its output to 2 decimals).
 *
 * A bar whose change is 0 multiplies both averages by (n − 1)/n, which for n > 1 leaves their
 * ratio, and so the RSI, exactly where it was: the RSI is read from the averages as of the last
 * bar that moved, so a flat stretch holds the value bit for bit (docs/functions-reference.md,
 * "Flat windows"). Recomputed, it would wander in its last bits as the two averages round
 * apart, and after enough flat bars underflow to 0 and read 100; the Stoch RSI divides by
 * exactly that wandering. (With n = 1 the factor is 0: both averages are 0, and the RSI 100.)
 *
 * Recursive: streams the averages from the input's first defined value f (the first RSI is at
 * f + n) and computes the ratio only for [from, to). The sign of a change is random on price
 * data, so gain and loss come from arithmetic ((|d| ± d)/2, exact in binary floating point)
 * rather than a branch, and 1/n is a multiply.
 *
 * Resumable: state [bar, average gain, average loss, and both as of the last bar that moved],
 * carried once seeded.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const inv = 1 / n;
  let i: number;
  let avgGain: number;
  let avgLoss: number;
  // The averages as of the last bar that moved (or the seed): the RSI is their ratio.
  let movedGain: number;
  let movedLoss: number;
  if (resumes(state, from)) {
    i = from;
    avgGain = state![1]!;
    avgLoss = state![2]!;
    movedGain = state![3]!;
    movedLoss = state![4]!;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const seedAt = f + n;
    for (let j = from; j < to && j < seedAt; j++) out[j] = NaN;
    if (seedAt >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    let gains = 0;
    let losses = 0;
    for (let j = f + 1; j <= seedAt; j++) {
      const d = x[j]! - x[j - 1]!;
      const a = Math.abs(d);
      gains += a + d;
      losses += a - d;
    }
    // The sums above hold 2·gain and 2·loss; halving is exact.
    avgGain = (gains * 0.5) / n;
    avgLoss = (losses * 0.5) / n;
    movedGain = avgGain;
    movedLoss = avgLoss;
    if (seedAt >= from) out[seedAt] = ratio(movedGain, movedLoss);
    i = seedAt + 1;
    for (; i < from; i++) {
      const d = x[i]! - x[i - 1]!;
      const a = Math.abs(d);
      avgGain += ((a + d) * 0.5 - avgGain) * inv;
      avgLoss += ((a - d) * 0.5 - avgLoss) * inv;
      if (d !== 0 || n === 1) {
        movedGain = avgGain;
        movedLoss = avgLoss;
      }
    }
  }
  for (; i < to; i++) {
    const d = x[i]! - x[i - 1]!;
    const a = Math.abs(d);
    avgGain += ((a + d) * 0.5 - avgGain) * inv;
    avgLoss += ((a - d) * 0.5 - avgLoss) * inv;
    if (d !== 0 || n === 1) {
      movedGain = avgGain;
      movedLoss = avgLoss;
    }
    out[i] = ratio(movedGain, movedLoss);
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = avgGain;
    state[2] = avgLoss;
    state[3] = movedGain;
    state[4] = movedLoss;
  }
};

/** RSI from the average gain and loss: 100 when the average loss is 0. */
function ratio(avgGain: number, avgLoss: number): number {
  return avgLoss === 0 ? 100 : 100 - 100 / (1 + avgGain / avgLoss);
}

export const rsi: FunctionModule = {
  name: "rsi",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: [],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: true,
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  stateSize: () => 5,
  doc: "Wilder RSI: RMA (alpha = 1/n) of gains and losses, seeded with the mean of the first n changes; 100 when the average loss is 0; a bar without change keeps it exactly.",
  example: "rsi(14) < 30",
  reference: "Wilder (1978); TA-Lib RSI; TradingView ta.rsi",
  phrases: [
    {
      category: "Momentum",
      phrase: "oversold",
      query: "rsi(14) < 30",
      aliases: [
        "rsi below 30",
        "rsi oversold",
      ],
      notes: "14-period Wilder RSI below 30 on the query's timeframe. Lower the threshold (25, 20) for deeper readings; prefix with d:: or h4:: to read another timeframe.",
    },
    {
      category: "Momentum",
      phrase: "overbought",
      query: "rsi(14) > 70",
      aliases: [
        "rsi above 70",
        "rsi overbought",
      ],
      notes: "14-period Wilder RSI above 70 on the query's timeframe.",
    },
    {
      category: "Momentum",
      phrase: "deeply oversold",
      query: "rsi(14) < 20",
      aliases: [
        "extremely oversold",
        "rsi below 20",
      ],
      notes: "A stricter oversold reading: RSI below 20.",
    },
    {
      category: "Momentum",
      phrase: "deeply overbought",
      query: "rsi(14) > 80",
      aliases: [
        "extremely overbought",
        "rsi above 80",
      ],
      notes: "A stricter overbought reading: RSI above 80.",
    },
    {
      category: "Momentum",
      phrase: "bullish momentum (RSI above 50)",
      query: "rsi(14) > 50",
      aliases: [
        "positive momentum",
        "rsi above 50",
      ],
      notes: "RSI above its midpoint: recent gains outweigh recent losses.",
    },
    {
      category: "Momentum",
      phrase: "bearish momentum (RSI below 50)",
      query: "rsi(14) < 50",
      aliases: [
        "negative momentum",
        "rsi below 50",
      ],
      notes: "RSI below its midpoint: recent losses outweigh recent gains.",
    },
    {
      category: "Momentum",
      phrase: "oversold on the daily chart",
      query: "d::rsi(14) < 30",
      aliases: [
        "daily oversold",
        "daily rsi below 30",
      ],
      notes: "Daily RSI of the last completed day below 30, whatever the query's timeframe.",
    },
    {
      category: "Momentum",
      phrase: "overbought on the 4-hour chart",
      query: "h4::rsi(14) > 70",
      aliases: [
        "4h overbought",
        "h4 rsi above 70",
      ],
      notes: "RSI of the last completed 4-hour bar above 70. Use it on m1 to h1 queries (on a d or w query a finer timeframe reads the last 4-hour bar inside the base bar).",
    },
  ],
};
