import type { Kernel } from "../kernel.js";

/** Elementwise absolute value; NaN stays NaN. */
export const abs: Kernel = (inputs, _consts, out, from, to) => {
  const x = inputs[0]!;
  for (let i = from; i < to; i++) out[i] = Math.abs(x[i]!);
};
