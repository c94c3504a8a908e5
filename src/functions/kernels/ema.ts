import type { Kernel } from "../kernel.js";

/**
 * Exponential moving average, alpha = 2/(n+1), seeded with the SMA of the first n values
 * (TA-Lib EMA, technicalindicators EMA, TradingView `ta.ema` docs). Seeding with the first
 * value instead is the classic source of screeners disagreeing with charts.
 *
 * Recursive: the value at bar i depends on every bar since the input's first defined value f,
 * so the kernel streams over [f, to) and writes [from, to). Leading NaN (the input is itself an
 * indicator still warming up) is skipped: the first EMA is at f + n − 1. A NaN after that
 * poisons the average from there on, as in the references.
 */
export const ema: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const alpha = 2 / (n + 1);
  let f = 0;
  while (f < to && x[f]! !== x[f]!) f++;
  const seedAt = f + n - 1;
  for (let i = from; i < to && i < seedAt; i++) out[i] = NaN;
  if (seedAt >= to) return;

  let sum = 0;
  for (let j = f; j <= seedAt; j++) sum += x[j]!;
  let e = sum / n;
  if (seedAt >= from) out[seedAt] = e;
  let i = seedAt + 1;
  for (; i < from; i++) e += alpha * (x[i]! - e);
  for (; i < to; i++) {
    e += alpha * (x[i]! - e);
    out[i] = e;
  }
};
