import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { stochRsiK, stochRsiStateSize } from "../shared/stochastic.js";

/** Forgetting the seed of Wilder's RMA (alpha = 1/n) to 1e-6 relative. */

const stochRsiKKernel: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  stochRsiK(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, out, from, to, ctx, state);
};

export const stochrsi_k: FunctionModule = {
  name: "stochrsi_k",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
    { name: "k", kind: "length" },
    { name: "smooth", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: [],
  extraLookback: ([n = 1, k = 1, smooth = 1]) => n + k + smooth - 2,
  lookbackDoc: "L(src) + n + k + smooth − 2",
  recursive: true,
  warmup: ([n = 1]) => convergenceBars(1 / n),
  kernel: stochRsiKKernel,
  stateSize: ([, k = 1, smooth = 1]) => stochRsiStateSize(k, smooth),
  doc:
    "Stoch RSI %K: SMA(smooth) of the stochastic over k bars of rsi(src, n), 0 to 100; undefined while the RSI's k-bar range is 0.",
  example: "stochrsi_k(14, 14, 3) < 20",
  reference:
    "TA-Lib STOCHRSI fastK when smooth = 1 (timeperiod = n, fastK = k); TradingView Stoch RSI K (smoothK = smooth) otherwise",
  phrases: [
    {
      category: "Momentum",
      phrase: "Stoch RSI oversold",
      query: "stochrsi_k(14, 14, 3) < 20",
      aliases: ["stochastic RSI below 20"],
      notes: "TradingView's Stoch RSI K (RSI 14, stochastic 14, smoothing 3) below 20: the RSI is near the bottom of its own 14-bar range.",
    },
    {
      category: "Momentum",
      phrase: "Stoch RSI overbought",
      query: "stochrsi_k(14, 14, 3) > 80",
      aliases: ["stochastic RSI above 80"],
      notes: "Stoch RSI K above 80: the RSI is near the top of its 14-bar range.",
    },
  ],
};
