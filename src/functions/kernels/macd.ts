import type { Kernel } from "../kernel.js";
import { MACD_LINE, macdStream } from "./macd_stream.js";

/**
 * MACD line: ema(src, fast) − ema(src, slow); consts [fast, slow].
 * Seeding and the first defined bar are described at `macdStream`.
 */
export const macd: Kernel = (inputs, consts, out, from, to) => {
  // The line does not involve the signal EMA, so its length is irrelevant here (1).
  macdStream(inputs[0]!, consts[0]!, consts[1]!, 1, MACD_LINE, out, from, to);
};
