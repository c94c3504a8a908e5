import { type FunctionModule, type Kernel, resumes } from "../module.js";
import { periodRange, sessionOf } from "../../sessions/periods.js";
import { typicalPrice } from "../shared/flat.js";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * Session VWAP (TradingView's VWAP with the session anchor, week anchor on daily bars):
 * Σ(hlc3·volume)/Σvolume over the bars of the current session, the current bar included.
 * The session is the market's day (`src/sessions/periods.ts`: the UTC day for CRYPTO, the FOREX
 * day closing at 17:00 New York, weekend stubs in Monday's) on intraday timeframes, and its week
 * on `d`; on `w` (and anything coarser) a session is one bar, so the value is the bar's own hlc3.
 * A session whose volume so far is 0 (forex feeds without volume) has no VWAP: NaN. Inputs are
 * the implicit [high, low, close, volume, time].
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
 *
 * Resumable: state [bar, session, Σ hlc3·volume, Σ volume, the session's one price], so a
 * step costs one bar, not a rescan of its session.
 */
const kernel: Kernel = (inputs, _consts, out, from, to, ctx, state) => {
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
  const anchor = tf >= DAY_MS ? "w" : "d";
  const session = sessionOf(ctx.market);
  // The session of the bar last looked at: most bars fall in it, so a period is computed once per session.
  let lo = Number.NaN;
  let hi = Number.NaN;
  let current = Number.NaN;
  const sessionOfTime = (t: number): number => {
    if (t >= lo && t < hi) return current;
    if (t !== t) return Number.NaN;
    const range = periodRange(t, anchor, session);
    lo = range.from;
    hi = range.to;
    current = range.start;
    return current;
  };

  let start = from;
  let sessionStart: number;
  let priceVolume = 0;
  let totalVolume = 0;
  // The session's one typical price while it has had only one; NaN once two differ.
  let flatPrice = NaN;
  // The bar that opens the sums afresh: the session's first bar, none when resumed.
  let opening: number;
  if (resumes(state, from)) {
    sessionStart = state![1]!;
    priceVolume = state![2]!;
    totalVolume = state![3]!;
    flatPrice = state![4]!;
    opening = -1;
  } else {
    const first = sessionOfTime(time[from]!);
    while (start > 0 && sessionOfTime(time[start - 1]!) === first) start--;
    sessionStart = first;
    opening = start;
  }
  for (let i = start; i < to; i++) {
    const s = sessionOfTime(time[i]!);
    const tp = typicalPrice(high[i]!, low[i]!, close[i]!);
    if (s !== s) {
      // A bar without a time stamp cannot be placed; it spoils the session it interrupts.
      priceVolume = NaN;
    } else if (s !== sessionStart || i === opening) {
      sessionStart = s;
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
  if (state !== undefined) {
    state[0] = to;
    state[1] = sessionStart;
    state[2] = priceVolume;
    state[3] = totalVolume;
    state[4] = flatPrice;
  }
};

export const vwap: FunctionModule = {
  name: "vwap",
  params: [],
  result: "number",
  column: "price",
  implicit: ["high", "low", "close", "volume", "time"],
  extraLookback: () => 0,
  lookbackDoc: "1",
  recursive: true,
  // One session's worth of bars beyond the current one, so the fetch reaches the session start (a
  // FOREX Monday that gathers weekend stubs holds a few bars more: those stubs are the only bars
  // a fetch of at least 300 bars per source can miss, on m1 and m5).
  warmup: (_consts, timeframeMs) =>
    timeframeMs >= WEEK_MS ? 0 : Math.ceil((timeframeMs >= DAY_MS ? WEEK_MS : DAY_MS) / timeframeMs) - 1,
  kernel,
  stateSize: () => 5,
  doc: "Session VWAP: Σ(hlc3·volume)/Σvolume since the first bar of the market's current day (intraday: the UTC day for CRYPTO, the FOREX day closing at 17:00 New York), of its current week (d); the bar's own hlc3 on w. Undefined while the session's volume is 0.",
  example: "close > vwap",
  reference: "TradingView VWAP (session anchor; week anchor on d)",
  phrases: [
    {
      category: "Volume",
      phrase: "price above VWAP",
      query: "close > vwap",
      aliases: ["above vwap"],
      notes: "The close is above the session VWAP (since the day's open intraday: 00:00 UTC for CRYPTO, 17:00 New York for FOREX; since the week's open on daily bars). Undefined where the feed has no volume.",
    },
    {
      category: "Volume",
      phrase: "price crossed above VWAP",
      query: "crossover(close, vwap)",
      notes: "The close moved from at or below the session VWAP to above it on the latest bar.",
    },
  ],
};
