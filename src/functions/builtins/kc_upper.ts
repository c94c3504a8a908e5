import { atr } from "./atr.js";
import { ema } from "./ema.js";
import { convergenceBars, type FunctionModule, type Kernel, type KernelContext } from "../module.js";

/**
 * Keltner channel edge `ema(src, n) + sign·mult·atr(n)`, shared by `kc_upper` (sign 1) and
 * `kc_lower` (sign −1). Inputs [src, high, low, close]; consts [n, mult].
 *
 * The ATR starts at bar n and the EMA at bar L(src) + n − 2; the edge is written from bar
 * L(src) + n − 1 on (one bar after the EMA could start when src is itself warming up), so that
 * the lookback is exactly L(src) + n whatever src is, as the planner counts it. Recursive
 * through both averages: a NaN after the start makes every later value NaN.
 */
export function keltner(
  inputs: readonly Float64Array[],
  consts: readonly number[],
  sign: number,
  out: Float64Array,
  from: number,
  to: number,
  ctx: KernelContext,
): void {
  const x = inputs[0]!;
  const n = consts[0]!;
  const mult = consts[1]!;
  if (from >= to) return;
  let f = 0;
  while (f < to && x[f]! !== x[f]!) f++;
  const start = f + n;
  for (let i = from; i < to && i < start; i++) out[i] = NaN;
  const begin = Math.max(from, start);
  if (begin >= to) return;
  const middle = ctx.scratch(0, to);
  const range = ctx.scratch(1, to);
  ema.kernel([x], consts, middle, begin, to, ctx);
  atr.kernel([inputs[1]!, inputs[2]!, inputs[3]!], consts, range, begin, to, ctx);
  const k = sign * mult;
  for (let i = begin; i < to; i++) out[i] = middle[i]! + k * range[i]!;
}

const kernel: Kernel = (inputs, consts, out, from, to, ctx) => keltner(inputs, consts, 1, out, from, to, ctx);

export const kc_upper: FunctionModule = {
  name: "kc_upper",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
    { name: "mult", kind: "number" },
  ],
  result: "number",
  implicit: ["high", "low", "close"],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: true,
  // The ATR's Wilder smoothing (1/n) forgets more slowly than the EMA's 2/(n+1).
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  doc: "Upper Keltner channel: ema(src, n) + mult · atr(n).",
  example: "close > kc_upper(20, 2)",
  reference: "TradingView ta.kc with ATR bands (Keltner Channels, bands style Average True Range)",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "breakout above the Keltner channel",
      query: "close > kc_upper(20, 2)",
      aliases: ["above keltner"],
      notes: "The close is above ema(20) + 2·atr(20), the upper Keltner channel: a volatility breakout.",
    },
    {
      category: "Bollinger bands",
      phrase: "Bollinger squeeze (Bollinger bands inside the Keltner channel)",
      query: "bb_upper(20, 2) < kc_upper(20, 1.5) and bb_lower(20, 2) > kc_lower(20, 1.5)",
      aliases: ["ttm squeeze"],
      notes: "Both Bollinger bands are inside the Keltner channel (the TTM squeeze): volatility is compressed and a breakout often follows.",
    },
  ],
};
