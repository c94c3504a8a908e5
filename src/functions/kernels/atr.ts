import type { Kernel } from "../kernel.js";

/**
 * Average true range (Wilder; TA-Lib ATR): TR[i] = max(high − low, |high − close[i−1]|,
 * |low − close[i−1]|) from the second bar on; the first ATR, at bar n, is the mean of
 * TR[1..n]; then Wilder's RMA, atr += (TR − atr)/n. Inputs are the implicit [high, low, close].
 *
 * Recursive: streams over [0, to). Bars before the first with all of high, low and close
 * defined are skipped (f), so the first ATR is at f + n; a later NaN poisons the average.
 */
export const atr: Kernel = (inputs, consts, out, _from, to) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const n = consts[0]!;
  const inv = 1 / n;
  let i = 0;
  for (; i < to && (high[i]! !== high[i]! || low[i]! !== low[i]! || close[i]! !== close[i]!); i++) out[i] = NaN;
  if (i >= to) return;
  const seedAt = i + n;
  out[i++] = NaN;
  let sum = 0;
  for (; i < to && i < seedAt; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const pc = close[i - 1]!;
    sum += Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc));
    out[i] = NaN;
  }
  if (i >= to) return;
  {
    const h = high[i]!;
    const l = low[i]!;
    const pc = close[i - 1]!;
    sum += Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc));
  }
  let a = sum / n;
  out[i++] = a;
  for (; i < to; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const pc = close[i - 1]!;
    a += (Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc)) - a) * inv;
    out[i] = a;
  }
};
