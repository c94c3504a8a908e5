/**
 * An instrument as it stood when one of its base bars closed: the base bars up to that bar,
 * and the bars of every other timeframe that opened before its close (the store's cut,
 * `src/alignment.ts`; a coarser bar still in progress is kept and the evaluator ignores it).
 * A run over that prefix is what `history` and the alert engine give at that bar, and what the
 * playground's chart draws there. Columns are shared (views or slices, no copy of a typed
 * array); a prefix of the store's bars keeps the store's mark, so the evaluator need not check
 * it again.
 */
import { alignmentCut } from "../alignment.js";
import type { Bars, Instrument, Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";
import { isTrusted, trustBars } from "./bars.js";

/**
 * `instrument` truncated after its `base` bar opening at `latest` (ms). The instrument itself
 * when nothing is cut, so an unchanged instrument keeps its identity.
 */
export function truncateInstrument(instrument: Instrument, base: Timeframe, latest: number): Instrument {
  const cut = alignmentCut(latest, TIMEFRAME_MS[base]);
  let bars: Partial<Record<Timeframe, Bars>> | undefined;
  for (const [tf, b] of Object.entries(instrument.bars) as [Timeframe, Bars][]) {
    // Base bars opening at or before `latest`; other timeframes' bars opening before the cut.
    const n = tf === base ? countBelow(b.time, latest + 1) : countBelow(b.time, cut);
    if (n === b.time.length) continue;
    bars ??= { ...instrument.bars };
    bars[tf] = prefixBars(b, n);
  }
  return bars ? { symbol: instrument.symbol, bars } : instrument;
}

/**
 * `instrument` as the store's paths evaluate it at its base bar opening at `latest`: truncated
 * there, each timeframe's bars from its anchor on (`anchor`, `compile(q).anchor`; decisions §9).
 * The library's run over it gives the service's values at that bar.
 */
export function anchoredInstrument(instrument: Instrument, base: Timeframe, latest: number, anchor: (timeframe: Timeframe, t: number) => number): Instrument {
  const cut = truncateInstrument(instrument, base, latest);
  const bars: Partial<Record<Timeframe, Bars>> = {};
  for (const [tf, b] of Object.entries(cut.bars) as [Timeframe, Bars][]) {
    let from: number;
    try {
      from = countBelow(b.time, anchor(tf, latest));
    } catch {
      // A timeframe the query does not read: left as it is.
      from = 0;
    }
    bars[tf] = from === 0 ? b : suffixBars(b, from);
  }
  return { symbol: instrument.symbol, bars };
}

/** The bars from index `from` on, keeping the store's mark. */
function suffixBars(bars: Bars, from: number): Bars {
  const cut = (column: ArrayLike<number>): ArrayLike<number> =>
    ArrayBuffer.isView(column) ? (column as Float64Array).subarray(from) : (Array.prototype.slice.call(column, from) as number[]);
  const suffix = { time: cut(bars.time), open: cut(bars.open), high: cut(bars.high), low: cut(bars.low), close: cut(bars.close), volume: cut(bars.volume) };
  return isTrusted(bars) ? trustBars(suffix) : suffix;
}

/** The first `n` bars of `bars`, keeping the store's mark. */
export function prefixBars(bars: Bars, n: number): Bars {
  const cut = (column: ArrayLike<number>): ArrayLike<number> =>
    ArrayBuffer.isView(column) ? (column as Float64Array).subarray(0, n) : (Array.prototype.slice.call(column, 0, n) as number[]);
  const prefix = { time: cut(bars.time), open: cut(bars.open), high: cut(bars.high), low: cut(bars.low), close: cut(bars.close), volume: cut(bars.volume) };
  return isTrusted(bars) ? trustBars(prefix) : prefix;
}

/** How many of the ascending `times` are below `limit`: the first index at or after it. */
export function countBelow(times: ArrayLike<number>, limit: number): number {
  let lo = 0;
  let hi = times.length;
  // Most cuts fall at or near the end (the alert engine's newest bars): check that first.
  if (hi === 0 || times[hi - 1]! < limit) return hi;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
