/**
 * Bars the store vouches for, and the error for bars nobody can: below both the store and the
 * evaluator, so the store marks what it reads (`trustBars`) and the sessions' derivation raises
 * `XqlDataError` without either reaching up into src/eval/.
 */
import type { Bars } from "../types.js";

/**
 * Thrown by `run` for bars that cannot be evaluated honestly: times that are not finite and
 * strictly increasing (unsorted or duplicate), times off the timeframe's grid (FOREX and
 * CRYPTO), or columns of unequal length. Query errors are never thrown this way; they come
 * back as data from `validate` and `explain`.
 *
 * @example
 * ```ts
 * import { compile, XqlDataError } from "xql";
 *
 * try {
 *   compile('market = "FOREX"\ntimeframe = h1\nclose > 1').run(myUniverse);
 * } catch (e) {
 *   if (e instanceof XqlDataError) console.error(e.message); // "Instrument 'EURUSD', timeframe h1: bar times must be ..."
 *   else throw e;
 * }
 * ```
 */
export class XqlDataError extends Error {
  /** Always `"XqlDataError"`. */
  override readonly name = "XqlDataError";
}

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
