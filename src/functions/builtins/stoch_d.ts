import { SMA_STATE, smaKernel } from "../shared/sma.js";
import { type FunctionModule, type Kernel, resumes, subState } from "../module.js";
import { fastStochastic } from "../shared/stochastic.js";

/**
 * Slow %D: the SMA(d) of slow %K, itself the SMA(smooth) of the raw stochastic over k bars.
 * Bar i needs %K on `[i − d + 1, i]`, hence the raw stochastic from `i − d − smooth + 2`.
 * Resumable: state [bar, both SMAs' states, the last d − 1 %K values], within a primed block.
 */
const stochD: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const k = consts[0]!;
  const smooth = consts[1]!;
  const d = consts[2]!;
  const fastK = ctx.scratch(0, to);
  const slowK = ctx.scratch(3, to);
  const slowState = subState(state, 1, SMA_STATE);
  const dState = subState(state, 1 + SMA_STATE, SMA_STATE);
  const ring = 1 + 2 * SMA_STATE;
  const kFrom = Math.max(0, from - d + 1);
  // Resumed, %K's SMA continues at `from` and the window's earlier %K values come from the state
  // (the scratch buffers hold one call's bars only); the raw %K is recomputed for its window.
  const resumed = resumes(state, from);
  if (resumed) {
    for (let j = kFrom; j < from; j++) slowK[j] = state![ring + j - (from - d + 1)]!;
  } else if (state !== undefined) {
    state.fill(NaN);
  }
  const slowFrom = resumed ? from : kFrom;
  fastStochastic(inputs[0]!, inputs[1]!, inputs[2]!, k, fastK, Math.max(0, slowFrom - smooth + 1), to, ctx, 1);
  smaKernel([fastK], [smooth], slowK, slowFrom, to, ctx, slowState);
  smaKernel([slowK], [d], out, from, to, ctx, dState);
  if (state !== undefined) {
    state[0] = to;
    for (let t = 0; t < d - 1; t++) {
      const j = to - d + 1 + t;
      state[ring + t] = j >= 0 ? slowK[j]! : NaN;
    }
  }
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
  stateSize: ([, , d = 1]) => 1 + 2 * SMA_STATE + d - 1,
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
