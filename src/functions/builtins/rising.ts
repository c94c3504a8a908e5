import type { FunctionModule, Kernel } from "../module.js";
import { monotoneRun } from "../shared/monotone.js";

/** See `monotoneRun` in shared/monotone.ts: n strict rises in a row, false through undefined values. */
const risingKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => monotoneRun(inputs[0]!, consts[0]!, true, out, from, to, state);

export const rising: FunctionModule = {
  name: "rising",
  params: [
    { name: "x", kind: "series" },
    { name: "n", kind: "length" },
  ],
  result: "boolean",
  column: "number",
  implicit: [],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "L(x) + n",
  recursive: false,
  kernel: risingKernel,
  stateSize: () => 2,
  doc: "True when x rose strictly on each of the last n bars (x[n] < … < x[1] < x); false if any of those n + 1 values is undefined.",
  example: "rising(close, 3) and volume > avg(volume, 20)",
  reference: "TradingView ta.rising compares with the window's highest; here each bar's move counts (three green closes in a row)",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "close rose 4 bars in a row",
      query: "rising(close, 4)",
      aliases: ["four higher closes", "rising close"],
      notes: "Each of the last 4 closes is strictly above the one before (5 closes in ascent); an undefined value among them makes it false.",
    },
    {
      category: "Momentum",
      phrase: "RSI rising for 3 bars",
      query: "rising(rsi(14), 3)",
      aliases: ["rsi rising"],
      notes: "The 14-bar RSI rose on each of the last 3 bars.",
    },
  ],
};
