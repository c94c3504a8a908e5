import { atr } from "./atr.js";
import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";

/**
 * Normalized ATR (TA-Lib NATR): 100·atr(n)/close, the average true range as a percentage of
 * price, so volatility compares across instruments at different prices. Undefined where the
 * close is 0. Inputs are the implicit [high, low, close].
 *
 * Where TA-Lib differs, the exact value is taken: TA-Lib writes 0 when |close| < 1e-14 (and
 * then, by a slip, into its first output slot rather than the current one), and for n = 1 it
 * returns the bare true range without dividing by the close.
 *
 * Recursive through its ATR: a NaN bar after the start makes every later value NaN.
 */
const kernel: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const close = inputs[2]!;
  if (from >= to) return;
  const range = ctx.scratch(0, to);
  // Its state is the ATR's.
  atr.kernel(inputs, consts, range, from, to, ctx, state);
  for (let i = from; i < to; i++) {
    const c = close[i]!;
    out[i] = c === 0 ? NaN : (100 * range[i]!) / c;
  }
};

export const natr: FunctionModule = {
  name: "natr",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "number",
  implicit: ["high", "low", "close"],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "n + 1",
  recursive: true,
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  stateSize: (k) => atr.stateSize!(k),
  doc: "Normalized ATR: 100 · atr(n) / close, the average true range in percent of price.",
  example: "natr(14) > 2",
  reference: "TA-Lib NATR",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "volatile: average true range above 2% of price",
      query: "natr(14) > 2",
      aliases: ["normalized atr"],
      notes: "The 14-bar ATR is more than 2% of the close. Normalizing by price makes volatility comparable across instruments.",
    },
  ],
};
