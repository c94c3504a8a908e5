import type { Kernel } from "../kernel.js";

/** Elementwise smaller of a and b; NaN in either operand gives NaN (Math.min propagates it). */
export const min: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  for (let i = from; i < to; i++) out[i] = Math.min(a[i]!, b[i]!);
};
