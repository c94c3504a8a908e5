/**
 * Multi-timeframe alignment with the closed-bar rule (decisions §1): at a bar of the outer
 * timeframe, `tf::expr` takes its value at the latest `tf` bar that has closed by the time the
 * outer bar closes (close = open time + duration). A coarser bar still in progress is ignored
 * (no lookahead, no repainting); for a finer timeframe it is the last bar inside the outer bar.
 */

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
