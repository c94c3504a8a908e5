import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { MACD_SIGNAL, MACD_STATE, macdStream } from "../shared/macd.js";

/**
 * MACD signal line: the EMA(signal) of the MACD line; consts [fast, slow, signal].
 * Seeding and the first defined bar are described at `macdStream`.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  macdStream(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, MACD_SIGNAL, out, from, to, state);
};

export const macd_signal: FunctionModule = {
  name: "macd_signal",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "fast", kind: "length" }, { name: "slow", kind: "length" }, { name: "signal", kind: "length", max: 12 }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => Math.max(k[0]!, k[1]!) - 1 + k[2]! - 1,
  lookbackDoc: "L(src) + max(fast, slow) − 1 + signal − 1",
  recursive: true,
  warmup: (k) => convergenceBars(2 / (Math.max(k[0]!, k[1]!) + 1)) + convergenceBars(2 / (k[2]! + 1)),
  kernel,
  stateSize: () => MACD_STATE,
  doc: "MACD signal line: the EMA (length signal) of the MACD line.",
  example: "macd(12, 26) > macd_signal(12, 26, 9)",
  reference: "Appel; TA-Lib MACD signal",
  phrases: [
    {
      phrase: "MACD signal line above zero",
      query: "macd_signal(12, 26, 9) > 0",
      aliases: [
        "signal line positive",
      ],
      notes: "The 9-bar EMA of the 12/26 MACD line is positive: the smoothed momentum is up.",
      category: "MACD",
    },
  ],
};
