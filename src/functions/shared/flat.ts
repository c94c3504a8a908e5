/**
 * The one rule for "flat up to rounding" (docs/functions-reference.md, "Flat windows"). A
 * window is flat when every value in it is the same double: its maximum minus its minimum is
 * exactly 0, with no tolerance (two prices a tick apart always differ, whatever their
 * magnitude). A ratio whose denominator measures movement over a window (a range, a mean or
 * standard deviation, a sum of moves or of money flow) is undefined on a flat window, and the
 * test is made on the window's values, never on the computed denominator: a mean of twenty
 * equal prices can round an ulp away from them, and a deviation of ulps over a deviation of
 * ulps is ±66.67, not a market signal.
 */

/** True when `x[first..last]` (both included) all hold the same value; false when one is NaN. */
export function isFlat(x: Float64Array, first: number, last: number): boolean {
  const v = x[last]!;
  for (let j = first; j < last; j++) if (x[j] !== v) return false;
  return v === v;
}

/**
 * The typical price (high + low + close)/3, exactly the price when the three are equal: a sum
 * of three equal prices rounds, and (0.1 + 0.1 + 0.1)/3 is 0.10000000000000002, which would put
 * a dead market's close below its own hlc3 and its VWAP.
 */
export function typicalPrice(high: number, low: number, close: number): number {
  return high === low && low === close ? close : (high + low + close) / 3;
}

/**
 * The mean of `x[first .. first + n)`: the plain sum over n, except that a window of equal
 * values is recognised and its mean is exactly that value (twenty 54321.07 sum to a rounded
 * total whose twentieth is 54321.06999999999). Seeds every SMA-seeded recursion (EMA, DEMA,
 * TEMA, MACD, KAMA, ...), so a constant series keeps them exactly at its value.
 */
export function windowMean(x: Float64Array, first: number, n: number): number {
  const v = x[first]!;
  let sum = 0;
  let flat = true;
  for (let j = first; j < first + n; j++) {
    const y = x[j]!;
    sum += y;
    if (y !== v) flat = false;
  }
  return flat ? v : sum / n;
}
