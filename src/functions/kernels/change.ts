import type { Kernel } from "../kernel.js";

/** `change(src, n) = src − src[n]`: the difference from n bars ago; NaN for the first n bars. */
export const change: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  for (; i < to; i++) out[i] = x[i]! - x[i - n]!;
};
