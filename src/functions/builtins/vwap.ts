import type { FunctionModule, Kernel } from "../module.js";
import { typicalPrice } from "../shared/flat.js";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-01 was a Thursday: weeks counted from the epoch start on Monday 1970-01-05. */
const MONDAY_MS = 4 * DAY_MS;

/**
 * Session VWAP (TradingView's VWAP with the session anchor, week anchor on daily bars):
 * Σ(hlc3·volume)/Σvolume over the bars of the current session, the current bar included.
 * The session is the UTC day of the bar's open time on intraday timeframes, the week from
 * Monday 00:00 UTC on `d`; on `w` (and anything coarser) a session is one bar, so the value is
 * the bar's own hlc3. A session whose volume so far is 0 (forex feeds without volume) has no
 * VWAP: NaN. Inputs are the implicit [high, low, close, volume, time].
 *
 * The kernel walks back from `from` to the first bar of its session and sums forward, so a
 * call for the latest bar costs one session. A NaN inside a session makes the rest of that
 * session NaN; the next session starts clean, as on a chart. If the bars given start inside a
 * session, it is counted from the first bar given (the warm-up of one session avoids that).
 *
 * A session whose typical prices have all been one price so far (a flat market) has that
 * price as its VWAP, exactly: the weighted sums round, and their quotient would step by ulps
 * from bar to bar around a price that does not move (docs/functions-reference.md, "Flat
 * windows").
 */
const kernel: Kernel = (inputs, _consts, out, from, to, ctx) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const volume = inputs[3]!;
  const time = inputs[4]!;
  const tf = ctx.timeframeMs;

  if (tf >= WEEK_MS) {
    for (let i = from; i < to; i++) out[i] = typicalPrice(high[i]!, low[i]!, close[i]!);
    return;
  }
  if (from >= to) return;
  const length = tf >= DAY_MS ? WEEK_MS : DAY_MS;
  const offset = tf >= DAY_MS ? MONDAY_MS : 0;
  const sessionOf = (t: number): number => Math.floor((t - offset) / length);

  let start = from;
  const first = sessionOf(time[from]!);
  while (start > 0 && sessionOf(time[start - 1]!) === first) start--;

  let session = first;
  let priceVolume = 0;
  let totalVolume = 0;
  // The session's one typical price while it has had only one; NaN once two differ.
  let flatPrice = NaN;
  for (let i = start; i < to; i++) {
    const s = sessionOf(time[i]!);
    const tp = typicalPrice(high[i]!, low[i]!, close[i]!);
    if (s !== s) {
      // A bar without a time stamp cannot be placed; it spoils the session it interrupts.
      priceVolume = NaN;
    } else if (s !== session || i === start) {
      session = s;
      priceVolume = 0;
      totalVolume = 0;
      flatPrice = tp;
    }
    if (tp !== flatPrice) flatPrice = NaN;
    const v = volume[i]!;
    priceVolume += tp * v;
    totalVolume += v;
    if (i >= from) out[i] = totalVolume === 0 || priceVolume !== priceVolume ? NaN : flatPrice === flatPrice ? flatPrice : priceVolume / totalVolume;
  }
};

export const vwap: FunctionModule = {
  name: "vwap",
  params: [],
  result: "number",
  implicit: ["high", "low", "close", "volume", "time"],
  extraLookback: () => 0,
  lookbackDoc: "1",
  recursive: true,
  // One session's worth of bars beyond the current one, so the fetch reaches the session start.
  warmup: (_consts, timeframeMs) =>
    timeframeMs >= WEEK_MS ? 0 : Math.ceil((timeframeMs >= DAY_MS ? WEEK_MS : DAY_MS) / timeframeMs) - 1,
  kernel,
  doc: "Session VWAP: Σ(hlc3·volume)/Σvolume since the first bar of the current UTC day (intraday), of the current week from Monday 00:00 UTC (d); the bar's own hlc3 on w. Undefined while the session's volume is 0.",
  example: "close > vwap",
  reference: "TradingView VWAP (session anchor; week anchor on d)",
  phrases: [
    {
      category: "Volume",
      phrase: "price above VWAP",
      query: "close > vwap",
      aliases: ["above vwap"],
      notes: "The close is above the session VWAP (since 00:00 UTC intraday, since Monday on daily bars). Undefined where the feed has no volume.",
    },
    {
      category: "Volume",
      phrase: "price crossed above VWAP",
      query: "crossover(close, vwap)",
      notes: "The close moved from at or below the session VWAP to above it on the latest bar.",
    },
  ],
};
