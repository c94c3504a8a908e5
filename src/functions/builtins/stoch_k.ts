import { SMA_STATE, smaKernel } from "../shared/sma.js";
import type { FunctionModule, Kernel } from "../module.js";
import { fastStochastic } from "../shared/stochastic.js";

/**
 * Slow %K: the SMA(smooth) of the raw stochastic, so bar i needs the raw values of
 * `[i − smooth + 1, i]`, each of which needs k bars: `k + smooth − 2` bars before i.
 */
export const stochK: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const k = consts[0]!;
  const smooth = consts[1]!;
  const fastK = ctx.scratch(0, to);
  fastStochastic(inputs[0]!, inputs[1]!, inputs[2]!, k, fastK, Math.max(0, from - smooth + 1), to, ctx, 1);
  // The raw %K is recomputed for the smoothing window each call (its extremes are exact), so
  // the state is the smoothing SMA's alone.
  smaKernel([fastK], [smooth], out, from, to, ctx, state);
};

export const stoch_k: FunctionModule = {
  name: "stoch_k",
  params: [
    { name: "k", kind: "length" },
    { name: "smooth", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([k = 1, smooth = 1]) => k + smooth - 2,
  lookbackDoc: "k + smooth − 1",
  recursive: false,
  kernel: stochK,
  stateSize: () => SMA_STATE,
  doc:
    "Slow stochastic %K: SMA(smooth) of 100·(close − lowest(low, k))/(highest(high, k) − lowest(low, k)); undefined while the k-bar range is 0.",
  example: "stoch_k(14, 3) < 20",
  reference: "TA-Lib STOCH slowK (fastK = k, slowK = smooth, SMA); 0-range windows undefined where TA-Lib writes 0",
  phrases: [
    {
      category: "Momentum",
      phrase: "stochastic oversold",
      query: "stoch_k(14, 3) < 20",
      aliases: ["slow stochastic below 20", "stochastic %K oversold"],
      notes: "Slow %K (14-bar stochastic smoothed over 3 bars) below 20: the close sits near the bottom of its 14-bar range. Undefined while the 14-bar range is 0.",
    },
    {
      category: "Momentum",
      phrase: "stochastic overbought",
      query: "stoch_k(14, 3) > 80",
      aliases: ["slow stochastic above 80"],
      notes: "Slow %K above 80: the close sits near the top of its 14-bar range.",
    },
  ],
};
