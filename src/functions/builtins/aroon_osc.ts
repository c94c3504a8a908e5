import type { FunctionModule, Kernel } from "../module.js";
import { EXTREME_STATE, windowExtreme } from "../shared/extreme.js";

/**
 * Aroon oscillator: aroon_up − aroon_down = `(100/n)·(age of the low − age of the high)`, the
 * ages over the last n + 1 bars (scratch buffer 0 holds the high's). Its state holds the high's
 * extreme, then the low's.
 */
const aroonOscKernel: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const n = consts[0]!;
  const highAge = ctx.scratch(0, to);
  windowExtreme(inputs[0]!, n + 1, 1, true, highAge, from, to, state, 0);
  windowExtreme(inputs[1]!, n + 1, -1, true, out, from, to, state, EXTREME_STATE);
  const factor = 100 / n;
  for (let i = from; i < to; i++) out[i] = factor * (out[i]! - highAge[i]!);
};

export const aroon_osc: FunctionModule = {
  name: "aroon_osc",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low"],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "n + 1",
  recursive: false,
  kernel: aroonOscKernel,
  stateSize: () => 2 * EXTREME_STATE,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Aroon oscillator: aroon_up(n) − aroon_down(n), −100 to 100.",
  example: "crossover(aroon_osc(25), 0)",
  reference: "TA-Lib AROONOSC",
  phrases: [
    {
      category: "Trend",
      phrase: "Aroon oscillator turned positive",
      query: "crossover(aroon_osc(25), 0)",
      aliases: ["aroon oscillator crosses zero"],
      notes: "Aroon up moves above Aroon down on this bar: the latest high is now more recent than the latest low.",
    },
  ],
};
