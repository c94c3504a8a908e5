import type { Kernel } from "../kernel.js";

/**
 * Lowest of the last n values, current bar included (TradingView `ta.lowest`, TA-Lib MIN).
 * NaN until n values exist and wherever the window holds a NaN. Same rescan-on-expiry scheme
 * as `highest`.
 */
export const lowest: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  let best = Infinity;
  let bestAt = -1;
  let nanAt = -1;
  for (; i < to; i++) {
    const first = i - n + 1;
    if (bestAt < first) {
      best = Infinity;
      bestAt = first - 1;
      for (let j = first; j <= i; j++) {
        const v = x[j]!;
        if (v !== v) nanAt = j;
        else if (v <= best) {
          best = v;
          bestAt = j;
        }
      }
    } else {
      const v = x[i]!;
      if (v !== v) nanAt = i;
      else if (v <= best) {
        best = v;
        bestAt = i;
      }
    }
    out[i] = nanAt >= first ? NaN : best;
  }
};
