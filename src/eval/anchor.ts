/**
 * Anchors (decisions §9, "One number per bar"): where every recursion of a query starts when a
 * base bar t is evaluated from the store, so that the value at t is a function of the stored
 * bars and t alone, whatever window was asked for and however many older bars the store holds.
 *
 * For a plan source with fetch F bars (`compile(q).fetch`, max(minLookback, warm-up)) and
 * timeframe duration D, and the market's calendar factor g (1 for CRYPTO, 1.5 for FOREX, whose
 * weeks trade 5 days of 7):
 *
 *     t_s  = min(t, t + dur(base) − D)  the source's own time at t: for a coarser source the
 *                                       open time of the latest of its bars that can have closed
 *                                       by base bar t's close; t itself for the base source and
 *                                       a finer one
 *     a(t) = the latest multiple of F·D since 1970-01-01T00:00Z that is ≤ t_s − g·F·D
 *
 * and bar t is evaluated over the source's bars that open at or after a(t). On a series without
 * gaps that is at least F closed bars (every grid point of [t_s − F·D, t_s] is a closed bar) and
 * at most (g + 1)·F (the span [a, t_s] is shorter than (g + 1)·F·D) — for a finer source, plus
 * the bars inside base bar t, which its value at t reads anyway — with no reference to what was
 * read: a(t) depends on t, the timeframes and F only.
 *
 * Why not t for every source (the contract's literal reading): a coarser source would sometimes
 * get F − 1 closed bars (a weekly source's Monday bars against an anchor that falls on a
 * Thursday, at an hour of a Thursday). Why not the coarser rule for a finer source too: at the
 * latest base bar, still in progress, the finer bars stop where the data stops (a day's m1 bars
 * at 00:30), far before the base bar's close, and an anchor measured from the close would leave
 * none of them.
 */
import { TIMEFRAME_MS, type Timeframe } from "../types.js";

/** The market's calendar factor: FOREX trades 5 days of 7, so its anchors reach back 1.5 times as far. */
export function calendarFactor(market: string): number {
  // Asked once per instrument and bar: the names as written by the checker are compared without
  // making a new string; any other spelling is upper-cased.
  if (market === "FOREX") return 1.5;
  if (market === "CRYPTO" || market.length !== 5) return 1;
  return market.toUpperCase() === "FOREX" ? 1.5 : 1;
}

/**
 * The anchor (ms) of a source of timeframe `timeframe` and fetch `fetchBars` at base bar `t`
 * (open time, ms) of timeframe `base`, in `market`.
 */
export function anchorTime(market: string, base: Timeframe, timeframe: Timeframe, fetchBars: number, t: number): number {
  const duration = TIMEFRAME_MS[timeframe];
  const span = fetchBars * duration;
  const own = t + Math.min(0, TIMEFRAME_MS[base] - duration);
  return Math.floor((own - calendarFactor(market) * span) / span) * span;
}

/**
 * Bars of a source that hold every bar from the anchor of any base bar on a series without gaps,
 * read as the latest ones up to that bar: (g + 1)·F, one for the bar at the anchor, one for a
 * FOREX session off the grid, one a read of another timeframe may add beyond the cut; and a
 * finer source's bars inside the base bar.
 */
export function anchorReach(market: string, base: Timeframe, timeframe: Timeframe, fetchBars: number): number {
  const inside = Math.max(0, Math.ceil(TIMEFRAME_MS[base] / TIMEFRAME_MS[timeframe]) - 1);
  return Math.ceil((calendarFactor(market) + 1) * fetchBars) + 3 + inside;
}

/**
 * The most bars of a source the evaluation of base bars from `first` to `last` can read from
 * their anchors: one per grid step from a(first) to the source's last bar closed by `last`'s
 * close, one more for the bar at the anchor, and one for a FOREX session that opens an hour off
 * the grid after a daylight-saving change. A read of this many latest bars (cut at `last`'s close) holds every
 * bar at or after a(first).
 */
export function anchoredBars(market: string, base: Timeframe, timeframe: Timeframe, fetchBars: number, first: number, last: number): number {
  const duration = TIMEFRAME_MS[timeframe];
  const own = last + TIMEFRAME_MS[base] - duration;
  return Math.floor((own - anchorTime(market, base, timeframe, fetchBars, first)) / duration) + 2;
}

/** What the anchored evaluation needs of a program's frames. */
interface AnchoredFrame {
  readonly timeframe: Timeframe;
  readonly fetchBars: number;
  firstAtOrAfter(time: number): number;
  narrow(from: number): void;
}

/**
 * The anchors of every frame at base bar time `t` into `out` (one per frame, plan order);
 * true when they differ from what `out` held (a new pass starts).
 */
export function anchorsAt(frames: readonly AnchoredFrame[], market: string, base: Timeframe, t: number, out: number[]): boolean {
  let changed = out.length !== frames.length;
  // Set only when it differs: setting an array's length is a call into the runtime, per instrument.
  if (changed) out.length = frames.length;
  for (let k = 0; k < frames.length; k++) {
    const frame = frames[k]!;
    const a = anchorTime(market, base, frame.timeframe, frame.fetchBars, t);
    if (out[k] !== a) {
      out[k] = a;
      changed = true;
    }
  }
  return changed;
}

/** Narrows every frame (attached to the instrument's whole bars) to its bars from its anchor; the base frame's first index dropped. */
export function narrowToAnchors(frames: readonly AnchoredFrame[], anchors: readonly number[]): number {
  let baseFrom = 0;
  for (let k = 0; k < frames.length; k++) {
    const frame = frames[k]!;
    const from = frame.firstAtOrAfter(anchors[k]!);
    if (k === 0) baseFrom = from;
    frame.narrow(from);
  }
  return baseFrom;
}
