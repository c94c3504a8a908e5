/**
 * The midpoint of the last n bars' range, (highest(high, n) + lowest(low, n))/2, at bar i
 * (i ≥ n − 1): the building block of every Ichimoku line. Math.max/min propagate a NaN bar.
 */
export function donchianMid(high: Float64Array, low: Float64Array, n: number, i: number): number {
  let hi = high[i]!;
  let lo = low[i]!;
  for (let j = i - n + 1; j < i; j++) {
    hi = Math.max(hi, high[j]!);
    lo = Math.min(lo, low[j]!);
  }
  return (hi + lo) / 2;
}

/**
 * Writes `donchianMid(n)` taken `shift` bars ago for [from, to): the Ichimoku conversion and
 * base lines (shift 0) and senkou span B as plotted (shift disp − 1).
 */
export function shiftedMid(
  high: Float64Array,
  low: Float64Array,
  n: number,
  shift: number,
  out: Float64Array,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const at = i - shift;
    out[i] = at < n - 1 ? NaN : donchianMid(high, low, n, at);
  }
}
