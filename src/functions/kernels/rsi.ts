import type { Kernel } from "../kernel.js";

/**
 * Wilder's RSI (TA-Lib RSI, TradingView `ta.rsi`): with changes d[i] = src[i] − src[i−1],
 * gain = max(d, 0) and loss = max(−d, 0), the average gain and loss are seeded with the simple
 * mean of the first n of them and then smoothed with Wilder's RMA (alpha = 1/n);
 * RSI = 100 − 100 / (1 + avgGain/avgLoss), exactly 100 when the average loss is 0 (a flat
 * series included). A plain mean instead of the RMA is the usual reason screeners disagree
 * with charts. Never rounded (technicalindicators rounds its output to 2 decimals).
 *
 * Recursive: streams the averages from the input's first defined value f (the first RSI is at
 * f + n) and computes the ratio only for [from, to). The sign of a change is random on price
 * data, so gain and loss come from arithmetic ((|d| ± d)/2, exact in binary floating point)
 * rather than a branch, and 1/n is a multiply.
 */
export const rsi: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const inv = 1 / n;
  let f = 0;
  while (f < to && x[f]! !== x[f]!) f++;
  const seedAt = f + n;
  for (let i = from; i < to && i < seedAt; i++) out[i] = NaN;
  if (seedAt >= to) return;

  let gains = 0;
  let losses = 0;
  for (let j = f + 1; j <= seedAt; j++) {
    const d = x[j]! - x[j - 1]!;
    const a = Math.abs(d);
    gains += a + d;
    losses += a - d;
  }
  // The sums above hold 2·gain and 2·loss; halving is exact.
  let avgGain = (gains * 0.5) / n;
  let avgLoss = (losses * 0.5) / n;
  if (seedAt >= from) out[seedAt] = avgLoss === 0 ? 100 : 100 - 100 / (1 + avgGain / avgLoss);
  let i = seedAt + 1;
  for (; i < from; i++) {
    const d = x[i]! - x[i - 1]!;
    const a = Math.abs(d);
    avgGain += ((a + d) * 0.5 - avgGain) * inv;
    avgLoss += ((a - d) * 0.5 - avgLoss) * inv;
  }
  for (; i < to; i++) {
    const d = x[i]! - x[i - 1]!;
    const a = Math.abs(d);
    avgGain += ((a + d) * 0.5 - avgGain) * inv;
    avgLoss += ((a - d) * 0.5 - avgLoss) * inv;
    out[i] = avgLoss === 0 ? 100 : 100 - 100 / (1 + avgGain / avgLoss);
  }
};
