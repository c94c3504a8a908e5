import type { Kernel } from "../kernel.js";

/** Elementwise larger of a and b; NaN in either operand gives NaN (Math.max propagates it). */
export const max: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  for (let i = from; i < to; i++) out[i] = Math.max(a[i]!, b[i]!);
};
