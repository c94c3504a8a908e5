import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { keltner, keltnerStateSize } from "../shared/keltner.js";

/** Lower Keltner channel: ema(src, n) − mult·atr(n); see `shared/keltner.ts`. */
const kernel: Kernel = (inputs, consts, out, from, to, ctx, state) => keltner(inputs, consts, -1, out, from, to, ctx, state);

export const kc_lower: FunctionModule = {
  name: "kc_lower",
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
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  stateSize: keltnerStateSize,
  doc: "Lower Keltner channel: ema(src, n) − mult · atr(n).",
  example: "close < kc_lower(20, 2)",
  reference: "TradingView ta.kc with ATR bands (Keltner Channels, bands style Average True Range)",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "price below the lower Keltner channel",
      query: "close < kc_lower(20, 2)",
      aliases: ["below keltner"],
      notes: "The close is below ema(20) − 2·atr(20): an oversold stretch or a downside breakout.",
    },
  ],
};
