import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { keltner, keltnerStateSize } from "../shared/keltner.js";

/** Upper Keltner channel: ema(src, n) + mult·atr(n); see `shared/keltner.ts`. */
const kernel: Kernel = (inputs, consts, out, from, to, ctx, state) => keltner(inputs, consts, 1, out, from, to, ctx, state);

export const kc_upper: FunctionModule = {
  name: "kc_upper",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
    { name: "mult", kind: "number" },
  ],
  result: "number",
  column: "price",
  implicit: ["high", "low", "close"],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: true,
  // The ATR's Wilder smoothing (1/n) forgets more slowly than the EMA's 2/(n+1).
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  stateSize: keltnerStateSize,
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
