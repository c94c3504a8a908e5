import type { FunctionModule, Kernel } from "../module.js";
import { EXTREME_STATE, windowExtreme } from "../shared/extreme.js";

/** Aroon up: `(100/n)·(n − bars since the highest high of the last n + 1 bars)`. */
const aroonUpKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const n = consts[0]!;
  windowExtreme(inputs[0]!, n + 1, 1, true, out, from, to, state);
  const factor = 100 / n;
  for (let i = from; i < to; i++) out[i] = factor * (n - out[i]!);
};

export const aroon_up: FunctionModule = {
  name: "aroon_up",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high"],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "n + 1",
  recursive: false,
  kernel: aroonUpKernel,
  stateSize: () => EXTREME_STATE,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Aroon up: 100·(n − bars since the highest high of the last n + 1 bars)/n; 100 on a fresh high (ties: the latest bar).",
  example: "aroon_up(25) > 70 and aroon_down(25) < 30",
  reference: "TA-Lib AROON (aroonUp); Chande (Achelis)",
  phrases: [
    {
      category: "Highs, lows and breakouts",
      phrase: "fresh 25-bar high by Aroon",
      query: "aroon_up(25) == 100",
      aliases: ["aroon up at 100"],
      notes: "Aroon up is 100 when this bar's high is the highest of the last 26 bars (the latest of equal highs counts).",
    },
    {
      category: "Trend",
      phrase: "Aroon uptrend",
      query: "aroon_up(25) > 70 and aroon_down(25) < 30",
      aliases: ["aroon up above 70"],
      notes: "Recent highs and old lows over 25 bars: Chande's uptrend reading.",
    },
  ],
};
