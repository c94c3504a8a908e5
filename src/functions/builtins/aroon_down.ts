import type { FunctionModule, Kernel } from "../module.js";
import { EXTREME_STATE, windowExtreme } from "../shared/extreme.js";

/** Aroon down: `(100/n)·(n − bars since the lowest low of the last n + 1 bars)`. */
const aroonDownKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const n = consts[0]!;
  windowExtreme(inputs[0]!, n + 1, -1, true, out, from, to, state);
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
  stateSize: () => EXTREME_STATE,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
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
