/**
 * Bars the store vouches for: below both the store and the evaluator, so the store marks what it
 * reads (`trustBars`) without reaching up into src/eval/. (`XqlDataError`, for bars nobody can
 * vouch for, lives in src/errors.ts with its codes, below every room that raises it.)
 */
import type { Bars } from "../types.js";

/** Bars the store checked when they were written and read back in time order. */
const trusted = new WeakSet<Bars>();

/**
 * Marks bars as the store's: sorted, finite and on the timeframe's grid, with columns of one
 * length, as every write checks and every read returns them. The evaluator then skips its
 * checks of them (a pass over their times, the lengths of their columns). Set by `fetchUniverse` (src/fetch/fetch.ts) on what it reads from the store,
 * by the hot tier (src/store/hot-tier.ts) on the views it hands out, and
 * on prefixes of such bars (the alerts' cut at a closed bar, src/alerts/evaluate.ts), nowhere else: a caller's own bars are always checked. The marked arrays must not be
 * modified afterwards (the store's readers and caches never do).
 */
export function trustBars(bars: Bars): Bars {
  trusted.add(bars);
  return bars;
}

/** {@link trustBars} on every symbol's bars of a store read. */
export function trustRead<T extends { bars: Bars }>(read: T[]): T[] {
  for (const { bars } of read) trusted.add(bars);
  return read;
}

/** True when {@link trustBars} marked these bars. */
export function isTrusted(bars: Bars): boolean {
  return trusted.has(bars);
}
