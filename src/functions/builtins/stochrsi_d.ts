import { smaKernel } from "../shared/sma.js";
import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { stochRsiK } from "../shared/stochastic.js";

/** Stoch RSI %D: the SMA(d) of Stoch RSI %K, which is needed on `[i − d + 1, i]`. */
const stochRsiD: Kernel = (inputs, consts, out, from, to, ctx) => {
  const kLine = ctx.scratch(4, to);
  const d = consts[3]!;
  stochRsiK(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, kLine, Math.max(0, from - d + 1), to, ctx);
  smaKernel([kLine], [d], out, from, to, ctx);
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
