import { SMA_STATE, smaKernel } from "../shared/sma.js";
import { convergenceBars, type FunctionModule, type Kernel, resumes, subState } from "../module.js";
import { stochRsiK, stochRsiStateSize } from "../shared/stochastic.js";

/**
 * Stoch RSI %D: the SMA(d) of Stoch RSI %K, which is needed on `[i − d + 1, i]`.
 *
 * Resumable: state [bar, %K's state, the SMA's, the last d − 1 %K values] (the scratch buffer
 * holds one call's bars only, so the window's earlier %K values come from the state).
 */
const stochRsiD: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const kLine = ctx.scratch(4, to);
  const d = consts[3]!;
  const kSize = stochRsiStateSize(consts[1]!, consts[2]!);
  const kState = subState(state, 1, kSize);
  const smaState = subState(state, 1 + kSize, SMA_STATE);
  const ring = 1 + kSize + SMA_STATE;
  const first = from - d + 1;
  if (resumes(state, from)) {
    for (let j = Math.max(0, first); j < from; j++) kLine[j] = state![ring + j - first]!;
    stochRsiK(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, kLine, from, to, ctx, kState);
  } else {
    if (state !== undefined) state.fill(NaN);
    stochRsiK(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, kLine, Math.max(0, first), to, ctx, kState);
  }
  smaKernel([kLine], [d], out, from, to, ctx, smaState);
  if (state !== undefined) {
    state[0] = to;
    for (let t = 0; t < d - 1; t++) {
      const j = to - d + 1 + t;
      state[ring + t] = j >= 0 ? kLine[j]! : NaN;
    }
  }
};

export const stochrsi_d: FunctionModule = {
  name: "stochrsi_d",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
    { name: "k", kind: "length" },
    { name: "smooth", kind: "length" },
    { name: "d", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: [],
  extraLookback: ([n = 1, k = 1, smooth = 1, d = 1]) => n + k + smooth + d - 3,
  lookbackDoc: "L(src) + n + k + smooth + d − 3",
  recursive: true,
  warmup: ([n = 1]) => convergenceBars(1 / n),
  kernel: stochRsiD,
  stateSize: ([, k = 1, smooth = 1, d = 1]) => 1 + stochRsiStateSize(k, smooth) + SMA_STATE + d - 1,
  doc: "Stoch RSI %D: SMA(d) of stochrsi_k(src, n, k, smooth), the signal line of the Stoch RSI.",
  example: "crossover(stochrsi_k(14, 14, 3), stochrsi_d(14, 14, 3, 3))",
  reference: "TA-Lib STOCHRSI fastD when smooth = 1 (fastD = d, SMA); TradingView Stoch RSI D otherwise",
  phrases: [
    {
      category: "Momentum",
      phrase: "Stoch RSI bullish cross",
      query: "crossover(stochrsi_k(14, 14, 3), stochrsi_d(14, 14, 3, 3)) and stochrsi_k(14, 14, 3) < 20",
      aliases: ["stochastic RSI cross up from oversold"],
      notes: "Stoch RSI K crosses above its 3-bar D line while still below 20.",
    },
  ],
};
