import { smaKernel } from "../shared/sma.js";
import type { FunctionModule, Kernel } from "../module.js";
import { fastStochastic } from "../shared/stochastic.js";

/**
 * Slow %D: the SMA(d) of slow %K, itself the SMA(smooth) of the raw stochastic over k bars.
 * Bar i needs %K on `[i − d + 1, i]`, hence the raw stochastic from `i − d − smooth + 2`.
 */
const stochD: Kernel = (inputs, consts, out, from, to, ctx) => {
  const k = consts[0]!;
  const smooth = consts[1]!;
  const d = consts[2]!;
  const fastK = ctx.scratch(0, to);
  const slowK = ctx.scratch(3, to);
  const kFrom = Math.max(0, from - d + 1);
  fastStochastic(inputs[0]!, inputs[1]!, inputs[2]!, k, fastK, Math.max(0, kFrom - smooth + 1), to, ctx, 1);
  smaKernel([fastK], [smooth], slowK, kFrom, to, ctx);
  smaKernel([slowK], [d], out, from, to, ctx);
};

export const stoch_d: FunctionModule = {
  name: "stoch_d",
  params: [
    { name: "k", kind: "length" },
    { name: "smooth", kind: "length" },
    { name: "d", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([k = 1, smooth = 1, d = 1]) => k + smooth + d - 3,
  lookbackDoc: "k + smooth + d − 2",
  recursive: false,
  kernel: stochD,
  doc: "Slow stochastic %D: SMA(d) of stoch_k(k, smooth), the signal line of the stochastic.",
  example: "crossover(stoch_k(14, 3), stoch_d(14, 3, 3)) and stoch_k(14, 3) < 20",
  reference: "TA-Lib STOCH slowD (fastK = k, slowK = smooth, slowD = d, SMA); 0-range windows undefined where TA-Lib writes 0",
  phrases: [
    {
      category: "Momentum",
      phrase: "stochastic bullish cross",
      query: "crossover(stoch_k(14, 3), stoch_d(14, 3, 3))",
      aliases: ["stochastic %K crosses above %D"],
      notes: "%K crosses above its 3-bar signal line %D on this bar; add `and stoch_k(14, 3) < 20` to keep only crosses from oversold.",
    },
  ],
};
