import type { FunctionModule, Kernel } from "../module.js";
import { cascadeConvergenceBars } from "../shared/convergence.js";
import { ADX, DIRECTIONAL_STATE, directional } from "../shared/directional.js";

/**
 * ADX: see `directional` (shared/directional.ts) for Wilder's procedure and its undefined values.
 */
const adxKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) =>
  directional(inputs[0]!, inputs[1]!, inputs[2]!, consts[0]!, ADX, out, from, to, state);

export const adx: FunctionModule = {
  name: "adx",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([n = 1]) => 2 * n - 1,
  lookbackDoc: "2n",
  recursive: true,
  warmup: ([n = 1]) => cascadeConvergenceBars(1 / n, 2),
  kernel: adxKernel,
  stateSize: () => DIRECTIONAL_STATE,
  doc: "Average directional index (Wilder): the smoothed DX, trend strength 0 to 100 whatever the direction.",
  example: "adx(14) > 25 and plus_di(14) > minus_di(14)",
  reference: "TA-Lib ADX",
  phrases: [
    {
      category: "Trend",
      phrase: "strong trend",
      query: "adx(14) > 25",
      aliases: ["adx above 25", "trending market"],
      notes: "14-bar ADX above 25: a strong trend, up or down. Combine with plus_di/minus_di for the direction.",
    },
    {
      category: "Trend",
      phrase: "strong uptrend by ADX",
      query: "adx(14) > 25 and plus_di(14) > minus_di(14)",
      aliases: ["adx uptrend"],
      notes: "A strong trend (ADX above 25) in which upward movement (+DI) dominates.",
    },
  ],
};
