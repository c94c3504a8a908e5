import { highest } from "../kernels/highest.js";
import { lowest } from "../kernels/lowest.js";
import { sma } from "../kernels/sma.js";
import type { FunctionModule, Kernel, KernelContext } from "../module.js";

/**
 * Lane's raw stochastic (%K before smoothing) over `[lo, to)` into `fastK`:
 * `100·(close − lowest(low, k))/(highest(high, k) − lowest(low, k))`, where the close sits in
 * the range of the last k bars. A range of zero (k bars at one price) leaves the position of
 * the close undefined: NaN, where TA-Lib writes 0 (decisions §1: a zero denominator is
 * undefined). Also serves the Stoch RSI, which passes the RSI as high, low and close.
 * Uses scratch buffers `base` and `base + 1` of `ctx` for the window extremes.
 */
export function fastStochastic(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  k: number,
  fastK: Float64Array,
  lo: number,
  to: number,
  ctx: KernelContext,
  base: number,
): void {
  const hh = ctx.scratch(base, to);
  const ll = ctx.scratch(base + 1, to);
  highest([high], [k], hh, lo, to, ctx);
  lowest([low], [k], ll, lo, to, ctx);
  for (let i = lo; i < to; i++) {
    const range = hh[i]! - ll[i]!;
    // NaN in the window propagates through hh/ll; 0/0 would also be NaN but x/0 is ±Infinity.
    fastK[i] = range === 0 ? NaN : (100 * (close[i]! - ll[i]!)) / range;
  }
}

/**
 * Slow %K: the SMA(smooth) of the raw stochastic, so bar i needs the raw values of
 * `[i − smooth + 1, i]`, each of which needs k bars: `k + smooth − 2` bars before i.
 */
export const stochK: Kernel = (inputs, consts, out, from, to, ctx) => {
  const k = consts[0]!;
  const smooth = consts[1]!;
  const fastK = ctx.scratch(0, to);
  fastStochastic(inputs[0]!, inputs[1]!, inputs[2]!, k, fastK, Math.max(0, from - smooth + 1), to, ctx, 1);
  sma([fastK], [smooth], out, from, to, ctx);
};

export const stoch_k: FunctionModule = {
  name: "stoch_k",
  params: [
    { name: "k", kind: "length" },
    { name: "smooth", kind: "length" },
  ],
  result: "number",
  implicit: ["high", "low", "close"],
  extraLookback: ([k = 1, smooth = 1]) => k + smooth - 2,
  lookbackDoc: "k + smooth − 1",
  recursive: false,
  kernel: stochK,
  doc:
    "Slow stochastic %K: SMA(smooth) of 100·(close − lowest(low, k))/(highest(high, k) − lowest(low, k)); undefined while the k-bar range is 0.",
  example: "stoch_k(14, 3) < 20",
  reference: "TA-Lib STOCH slowK (fastK = k, slowK = smooth, SMA); 0-range windows undefined where TA-Lib writes 0",
  phrases: [
    { phrase: "stochastic oversold", query: "stoch_k(14, 3) < 20" },
    { phrase: "stochastic overbought", query: "stoch_k(14, 3) > 80" },
  ],
};
