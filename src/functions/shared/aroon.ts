/**
 * Age of the window's extreme: for each bar i in [from, to), how many bars ago the highest
 * (`highs` true) or lowest value of the n + 1 bars `[i − n, i]` was, into `age`. Chande's Aroon
 * looks back n bars *besides* the current one, so the age runs from 0 (extreme today) to n.
 * On ties the latest bar counts (TA-Lib AROON): a high matched today is a fresh high. NaN
 * before n + 1 bars exist and wherever the window holds a NaN.
 *
 * Keeps the current extreme and its bar, rescanning only when that bar leaves the window, as
 * `highest` does: amortised O(1) per bar on price data.
 */
export function extremeAge(
  x: Float64Array,
  n: number,
  highs: boolean,
  age: Float64Array,
  from: number,
  to: number,
): void {
  const sign = highs ? 1 : -1;
  let i = from;
  for (; i < to && i < n; i++) age[i] = NaN;
  let best = -Infinity;
  let bestAt = -1;
  let nanAt = -1;
  for (; i < to; i++) {
    const first = i - n;
    if (bestAt < first) {
      best = -Infinity;
      bestAt = first - 1;
      for (let j = first; j <= i; j++) {
        const v = sign * x[j]!;
        if (v !== v) nanAt = j;
        else if (v >= best) {
          best = v;
          bestAt = j;
        }
      }
    } else {
      const v = sign * x[i]!;
      if (v !== v) nanAt = i;
      else if (v >= best) {
        best = v;
        bestAt = i;
      }
    }
    age[i] = nanAt >= first ? NaN : i - bestAt;
  }
}
