import { sma } from "../kernels/sma.js";
import type { FunctionModule, Kernel, KernelContext } from "../module.js";
import { fastStochastic } from "./stoch_k.js";

/** Forgetting the seed of Wilder's RMA (alpha = 1/n) to 1e-6 relative. */
export const rsiWarmup = (n: number): number => (n <= 1 ? 0 : Math.ceil(Math.log(1e-6) / Math.log(1 - 1 / n)));

/**
 * Wilder's RSI(n) of x into `out` over [from, to), as `rsi` defines it (seeded with the mean of
 * the first n changes, then RMA; 100 when the average loss is 0), streamed from the first
 * defined x. The arithmetic follows TA-Lib's order, avg = (avg·(n − 1) + change)/n and
 * RSI = 100·gain/(gain + loss), rather than `rsi`'s: equal up to rounding, but in a flat
 * stretch both averages decay by the same factor and the RSI is constant up to rounding
 * noise, so its k-bar range *is* that noise. Using the same operations as TA-Lib makes the
 * noise, and hence the Stoch RSI there, bit-identical to the reference.
 */
function wilderRsi(x: Float64Array, n: number, out: Float64Array, from: number, to: number): void {
  let f = 0;
  while (f < to && x[f]! !== x[f]!) f++;
  const seedAt = f + n;
  for (let i = from; i < to && i < seedAt; i++) out[i] = NaN;
  if (seedAt >= to) return;
  let gain = 0;
  let loss = 0;
  for (let j = f + 1; j <= seedAt; j++) {
    const d = x[j]! - x[j - 1]!;
    if (d < 0) loss -= d;
    else gain += d;
  }
  gain /= n;
  loss /= n;
  const m = n - 1;
  for (let i = seedAt; ; ) {
    const total = gain + loss;
    if (i >= from) out[i] = total === 0 ? 100 : 100 * (gain / total);
    if (++i >= to) break;
    const d = x[i]! - x[i - 1]!;
    gain *= m;
    loss *= m;
    if (d < 0) loss -= d;
    else if (d >= 0) gain += d;
    else gain = loss = NaN;
    gain /= n;
    loss /= n;
  }
}

/**
 * Stoch RSI %K over `[lo, to)` into `kOut`: Wilder's RSI(n) of src, its stochastic over k bars
 * (where the RSI sits in its own k-bar range), then the SMA(smooth) of that. Uses scratch
 * buffers 0 to 3 of `ctx`.
 */
export function stochRsiK(
  src: Float64Array,
  n: number,
  k: number,
  smooth: number,
  kOut: Float64Array,
  lo: number,
  to: number,
  ctx: KernelContext,
): void {
  const rawFrom = Math.max(0, lo - smooth + 1);
  const r = ctx.scratch(0, to);
  // RSI is recursive: it streams from the first defined src and writes only what the window needs.
  wilderRsi(src, n, r, Math.max(0, rawFrom - k + 1), to);
  const fastK = ctx.scratch(1, to);
  fastStochastic(r, r, r, k, fastK, rawFrom, to, ctx, 2);
  sma([fastK], [smooth], kOut, lo, to, ctx);
}

const stochRsiKKernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  stochRsiK(inputs[0]!, consts[0]!, consts[1]!, consts[2]!, out, from, to, ctx);
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
  implicit: [],
  extraLookback: ([n = 1, k = 1, smooth = 1]) => n + k + smooth - 2,
  lookbackDoc: "L(src) + n + k + smooth − 2",
  recursive: true,
  warmup: ([n = 1]) => rsiWarmup(n),
  kernel: stochRsiKKernel,
  doc:
    "Stoch RSI %K: SMA(smooth) of the stochastic over k bars of rsi(src, n), 0 to 100; undefined while the RSI's k-bar range is 0.",
  example: "stochrsi_k(14, 14, 3) < 20",
  reference:
    "TA-Lib STOCHRSI fastK when smooth = 1 (timeperiod = n, fastK = k); TradingView Stoch RSI K (smoothK = smooth) otherwise",
  phrases: [
    { phrase: "Stoch RSI oversold", query: "stochrsi_k(14, 14, 3) < 20" },
    { phrase: "Stoch RSI overbought", query: "stochrsi_k(14, 14, 3) > 80" },
  ],
};
