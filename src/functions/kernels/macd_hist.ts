import type { Kernel } from "../kernel.js";
import { MACD_HIST, macdStream } from "./macd_stream.js";

/**
 * MACD histogram: line − signal; consts [fast, slow, signal].
 * Seeding and the first defined bar are described at `macdStream`.
 */
export const macd_hist: Kernel = (inputs, consts, out, from, to) => {
  macdStream(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, MACD_HIST, out, from, to);
};
