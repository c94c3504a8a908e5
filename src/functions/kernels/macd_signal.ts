import type { Kernel } from "../kernel.js";
import { MACD_SIGNAL, macdStream } from "./macd_stream.js";

/**
 * MACD signal line: the EMA(signal) of the MACD line; consts [fast, slow, signal].
 * Seeding and the first defined bar are described at `macdStream`.
 */
export const macd_signal: Kernel = (inputs, consts, out, from, to) => {
  macdStream(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, MACD_SIGNAL, out, from, to);
};
