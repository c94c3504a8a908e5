import type { FunctionModule, Kernel } from "../module.js";
import { monotoneRun } from "../shared/monotone.js";

/** See `monotoneRun` in shared/monotone.ts: n strict falls in a row, false through undefined values. */
const fallingKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) =>
  monotoneRun(inputs[0]!, consts[0]!, false, out, from, to, state);

export const falling: FunctionModule = {
  name: "falling",
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
  kernel: fallingKernel,
  stateSize: () => 2,
  doc: "True when x fell strictly on each of the last n bars (x[n] > … > x[1] > x); false if any of those n + 1 values is undefined.",
  example: "falling(close, 3) and rsi(14) < 30",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "close fell 3 bars in a row",
      query: "falling(close, 3)",
      aliases: ["three lower closes", "falling close"],
      notes: "Each of the last 3 closes is strictly below the one before.",
    },
    {
      category: "Volume",
      phrase: "volume falling for 5 bars",
      query: "falling(volume, 5)",
      aliases: ["declining volume"],
      notes: "Volume fell on each of the last 5 bars: interest drying up.",
    },
  ],
};
