import type { Kernel } from "../kernel.js";

/**
 * `crossunder(a, b)`: 1 when `a < b` on this bar and `a >= b` on the previous one, else 0
 * (TradingView `ta.crossunder`). Non-finite operands (NaN, ±Infinity) and bar 0 give 0, as for crossover.
 */
export const crossunder: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  let i = from;
  if (i === 0 && i < to) out[i++] = 0;
  for (; i < to; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const px = a[i - 1]!;
    const py = b[i - 1]!;
    // x − x is 0 only for finite x: ±Infinity (a division by zero) fails the comparison like NaN.
    out[i] = x < y && px >= py && x - x + y - y + px - px + py - py === 0 ? 1 : 0;
  }
};
