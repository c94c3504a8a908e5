import type { FunctionModule, Kernel } from "../module.js";
import { extremeAge } from "../shared/aroon.js";

/** Aroon down: `(100/n)·(n − bars since the lowest low of the last n + 1 bars)`. */
const aroonDownKernel: Kernel = (inputs, consts, out, from, to) => {
  const n = consts[0]!;
  extremeAge(inputs[0]!, n, false, out, from, to);
  const factor = 100 / n;
  for (let i = from; i < to; i++) out[i] = factor * (n - out[i]!);
};

export const aroon_down: FunctionModule = {
  name: "aroon_down",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["low"],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "n + 1",
  recursive: false,
  kernel: aroonDownKernel,
  doc: "Aroon down: 100·(n − bars since the lowest low of the last n + 1 bars)/n; 100 on a fresh low (ties: the latest bar).",
  example: "aroon_down(25) > 70 and aroon_up(25) < 30",
  reference: "TA-Lib AROON (aroonDown); Chande (Achelis)",
  phrases: [
    {
      category: "Trend",
      phrase: "Aroon downtrend",
      query: "aroon_down(25) > 70 and aroon_up(25) < 30",
      aliases: ["aroon down above 70"],
      notes: "Recent lows and old highs over 25 bars: Chande's downtrend reading.",
    },
  ],
};
