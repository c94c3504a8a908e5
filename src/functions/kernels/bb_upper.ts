import type { Kernel } from "../kernel.js";
import { bands } from "./bands.js";

/** Upper Bollinger band: `sma(src, n) + k · stdev(src, n)`, stdev population; consts [n, k]. */
export const bb_upper: Kernel = (inputs, consts, out, from, to) => {
  bands(inputs[0]!, consts[0]!, 1, consts[1]!, out, from, to);
};
