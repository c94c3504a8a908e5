import type { Kernel } from "../kernel.js";

/**
 * Exponential moving average, alpha = 2/(n+1), seeded with the SMA of the first n values
 * (TA-Lib EMA, technicalindicators EMA, TradingView `ta.ema` docs). Seeding with the first
 * value instead is the classic source of screeners disagreeing with charts.
 *
 * Recursive: the value at bar i depends on every bar since the input's first defined value f,
 * so the kernel streams over [0, to) and writes every bar up to `to`. Leading NaN (the input is
 * itself an indicator still warming up) is skipped: the first EMA is at f + n − 1. A NaN after
 * that poisons the average from there on, as in the references.
 */
export const ema: Kernel = (inputs, consts, out, _from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const alpha = 2 / (n + 1);
  let i = 0;
  for (; i < to && x[i]! !== x[i]!; i++) out[i] = NaN;
  const seedAt = i + n - 1;
  let sum = 0;
  for (; i < to && i < seedAt; i++) {
    sum += x[i]!;
    out[i] = NaN;
  }
  if (i >= to) return;
  let e = (sum + x[i]!) / n;
  out[i++] = e;
  for (; i < to; i++) {
    e += alpha * (x[i]! - e);
    out[i] = e;
  }
};
