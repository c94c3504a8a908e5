/**
 * The one rule for "flat up to rounding" (docs/functions-reference.md, "Flat windows"). A
 * window is flat when every value in it is the same double: its maximum minus its minimum is
 * exactly 0, with no tolerance (two prices a tick apart always differ, whatever their
 * magnitude). A ratio whose denominator measures movement over a window (a range, a mean or
 * standard deviation, a sum of moves or of money flow) is undefined on a flat window, and the
 * test is made on the window's values, never on the computed denominator: a mean of twenty
 * equal prices can round an ulp away from them, and a deviation of ulps over a deviation of
 * ulps is ±66.67, not a market signal. Kernels test it with a run of equal values kept beside
 * their loops (`equalRun`, `nextRun` below), one comparison per bar.
 */

/**
 * The typical price (high + low + close)/3, exactly the price when the three are equal: a sum
 * of three equal prices rounds, and (0.1 + 0.1 + 0.1)/3 is 0.10000000000000002, which would put
 * a dead market's close below its own hlc3 and its VWAP.
 */
export function typicalPrice(high: number, low: number, close: number): number {
  return high === low && low === close ? close : (high + low + close) / 3;
}

/*
 * Flat windows are exact (decisions §9): a mean of n equal prices is that price and their
 * deviation exactly 0, so a strict comparison against the price (`close > sma(close, 20)`,
 * `close > bb_upper(20, 2)`) is never decided by rounding. A sum of n equal doubles divided by
 * n rounds (twenty 54321.07 average to 54321.06999999999), so the windowed kernels recognise a
 * flat window instead: beside their sums they keep the length of the run of equal values that
 * ends at the current bar, one comparison per bar, and a window of n values is flat when that
 * run is at least n long. Non-flat windows keep their arithmetic bit for bit.
 */

/**
 * The length of the run of equal finite values that ends at `x[i]`, counted back over at most
 * `cap` values (0 when `i` is before the series or `x[i]` is NaN or infinite): where a kernel's
 * running count starts, before the first bar it writes.
 */
export function equalRun(x: Float64Array, i: number, cap: number): number {
  if (i < 0) return 0;
  const v = x[i]!;
  if (v - v !== 0) return 0;
  let run = 1;
  while (run < cap && i - run >= 0 && x[i - run] === v) run++;
  return run;
}

/**
 * The run of equal finite values ending at `x[i]`, given the run ending at `x[i − 1]`. NaN and
 * ±Infinity end a run (they are never equal to a price, and a window holding one keeps IEEE's
 * answer), so a run of n or more guarantees n equal finite values.
 */
export function nextRun(x: Float64Array, i: number, run: number): number {
  const v = x[i]!;
  if (v - v !== 0) return 0;
  return run > 0 && v === x[i - 1] ? run + 1 : 1;
}

/**
 * The mean of `x[first..last]`, summed from the oldest value as TA-Lib seeds its averages, or
 * their common value exactly when they are all equal: the seed of the SMA-seeded recursions
 * (ema, dema, tema, macd, atr), which then stay exactly on a constant series, since
 * `e + alpha·(v − e)` is e when e is v.
 */
export function seedMean(x: Float64Array, first: number, last: number): number {
  const v = x[last]!;
  let sum = 0;
  let flat = v - v === 0;
  for (let j = first; j <= last; j++) {
    const y = x[j]!;
    sum += y;
    if (y !== v) flat = false;
  }
  return flat ? v : sum / (last - first + 1);
}
