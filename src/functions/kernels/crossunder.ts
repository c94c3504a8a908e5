import type { Kernel } from "../kernel.js";

/**
 * `crossunder(a, b)`: 1 when `a < b` on this bar and `a >= b` on the previous one, else 0
 * (TradingView `ta.crossunder`). NaN operands and bar 0 give 0, as for crossover.
 */
export const crossunder: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  let i = from;
  if (i === 0 && i < to) out[i++] = 0;
  for (; i < to; i++) out[i] = a[i]! < b[i]! && a[i - 1]! >= b[i - 1]! ? 1 : 0;
};
