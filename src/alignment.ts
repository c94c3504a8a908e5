/**
 * The closed-bar rule (decisions §1 Evaluation), in one module for the two places that apply
 * it, so they cannot disagree: the evaluator (which bar of each timeframe a base bar sees) and
 * the store's fetch (which bars a read of another timeframe returns). At a base bar,
 * `tf::expr` takes its value at the latest `tf` bar that has closed by the time the base bar
 * closes (close = open time + duration). A coarser bar still in progress is ignored (no
 * lookahead, no repainting); for a finer timeframe it is the last bar inside the base bar.
 *
 * A read of another timeframe is therefore cut at the base bar's close: bars that open before
 * the cut are returned (those closed by it, and at most one still in progress that the
 * evaluator ignores). The cut may lie far past the data — a daily base bar in progress since
 * 00:00 closes at midnight, while its m1 bars end at 00:30 — so a read looks back for its bars
 * from the newest one the cut lets through, `min(newest bar's open, cut − 1)`, never from the
 * cut itself (the stores' SQL).
 */

/**
 * The cut of a read of another timeframe at a base bar: its close. Bars opening before it
 * may be returned; those closed by it count.
 */
export function alignmentCut(baseOpen: number, baseDuration: number): number {
  return baseOpen + baseDuration;
}

/**
 * Index of the last bar of `times` (open times, ascending, bars of `duration` ms) that has
 * closed by `closeTime`, or −1 when none has.
 */
export function lastClosedIndex(times: ArrayLike<number>, length: number, duration: number, closeTime: number): number {
  // Binary search for the last i with times[i] + duration <= closeTime.
  let lo = 0;
  let hi = length - 1;
  let found = -1;
  const limit = closeTime - duration;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= limit) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
