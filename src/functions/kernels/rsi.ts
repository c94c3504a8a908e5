import type { Kernel } from "../kernel.js";

/**
 * Wilder's RSI (TA-Lib RSI, TradingView `ta.rsi`): with changes d[i] = src[i] − src[i−1],
 * gain = max(d, 0) and loss = max(−d, 0), the average gain and loss are seeded with the simple
 * mean of the first n of them and then smoothed with Wilder's RMA (alpha = 1/n);
 * RSI = 100 − 100 / (1 + avgGain/avgLoss), exactly 100 when the average loss is 0 (a flat
 * series included). A plain mean instead of the RMA is the usual reason screeners disagree
 * with charts. Never rounded (technicalindicators rounds its output to 2 decimals).
 *
 * Recursive: streams from the input's first defined value f over [0, to); the first RSI is at
 * f + n. The sign of a change is random on price data, so gain and loss come from arithmetic
 * ((d + |d|)/2, exact in binary floating point) rather than a branch, and 1/n is a multiply.
 */
export const rsi: Kernel = (inputs, consts, out, _from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const inv = 1 / n;
  let i = 0;
  for (; i < to && x[i]! !== x[i]!; i++) out[i] = NaN;
  if (i >= to) return;
  const seedAt = i + n;
  let prev = x[i]!;
  out[i++] = NaN;
  let gains = 0;
  let losses = 0;
  for (; i < to && i < seedAt; i++) {
    const v = x[i]!;
    const d = v - prev;
    const a = Math.abs(d);
    gains += (a + d) * 0.5;
    losses += (a - d) * 0.5;
    prev = v;
    out[i] = NaN;
  }
  if (i >= to) return;
  {
    const v = x[i]!;
    const d = v - prev;
    const a = Math.abs(d);
    gains += (a + d) * 0.5;
    losses += (a - d) * 0.5;
    prev = v;
  }
  let avgGain = gains / n;
  let avgLoss = losses / n;
  out[i++] = avgLoss === 0 ? 100 : 100 - 100 / (1 + avgGain / avgLoss);
  for (; i < to; i++) {
    const v = x[i]!;
    const d = v - prev;
    const a = Math.abs(d);
    avgGain += ((a + d) * 0.5 - avgGain) * inv;
    avgLoss += ((a - d) * 0.5 - avgLoss) * inv;
    prev = v;
    out[i] = avgLoss === 0 ? 100 : 100 - 100 / (1 + avgGain / avgLoss);
  }
};
