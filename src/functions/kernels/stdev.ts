import type { Kernel } from "../kernel.js";
import { bands } from "./bands.js";

/** Population standard deviation of the last n values (divide by n); see `bands`. */
export const stdev: Kernel = (inputs, consts, out, from, to) => {
  bands(inputs[0]!, consts[0]!, 0, 1, out, from, to);
};
