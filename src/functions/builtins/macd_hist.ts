import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { MACD_HIST, MACD_STATE, macdStream } from "../shared/macd.js";

/**
 * MACD histogram: line − signal; consts [fast, slow, signal].
 * Seeding and the first defined bar are described at `macdStream`.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  macdStream(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, MACD_HIST, out, from, to, state);
};

export const macd_hist: FunctionModule = {
  name: "macd_hist",
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
  doc: "MACD histogram: macd − macd_signal.",
  example: "macd_hist(12, 26, 9) > 0",
  reference: "Appel; TA-Lib MACD histogram",
  phrases: [
    {
      category: "MACD",
      phrase: "MACD histogram rising",
      query: "macd_hist(12, 26, 9) > macd_hist(12, 26, 9)[1]",
      aliases: [
        "improving macd",
        "macd momentum rising",
      ],
      notes: "The histogram grew since the bar before.",
    },
  ],
};
