import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { MACD_LINE, MACD_STATE, macdStream } from "../shared/macd.js";

/**
 * MACD line: ema(src, fast) − ema(src, slow); consts [fast, slow].
 * Seeding and the first defined bar are described at `macdStream`.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  // The line does not involve the signal EMA, so its length is irrelevant here (1).
  macdStream(inputs[0]!, consts[0]!, consts[1]!, 1, MACD_LINE, out, from, to, state);
};

export const macd: FunctionModule = {
  name: "macd",
  params: [{ name: "src", kind: "series", default: "close" }, { name: "fast", kind: "length" }, { name: "slow", kind: "length" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => Math.max(k[0]!, k[1]!) - 1,
  lookbackDoc: "L(src) + max(fast, slow) − 1",
  recursive: true,
  warmup: (k) => convergenceBars(2 / (Math.max(k[0]!, k[1]!) + 1)),
  kernel,
  stateSize: () => MACD_STATE,
  doc: "MACD line: ema(src, fast) − ema(src, slow).",
  example: "macd(12, 26) > 0",
  reference: "Appel; TA-Lib MACD (SMA-seeded EMAs)",
  phrases: [
    {
      category: "MACD",
      phrase: "MACD above zero",
      query: "macd(12, 26) > 0",
      aliases: [
        "positive macd",
      ],
      notes: "The 12-bar EMA is above the 26-bar EMA.",
    },
    {
      category: "MACD",
      phrase: "MACD below zero",
      query: "macd(12, 26) < 0",
      aliases: [
        "negative macd",
      ],
      notes: "The 12-bar EMA is below the 26-bar EMA.",
    },
  ],
};
