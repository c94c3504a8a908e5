import { resumes } from "../module.js";

/** Slots of a `windowExtreme` state: the bar, the extreme (signed), its bar, the latest NaN bar. */
export const EXTREME_STATE = 4;

/**
 * The extreme of the last `w` values (current bar included) for each bar i in [from, to): the
 * highest (`sign` 1) or lowest (`sign` −1), written as the value, or (`age` true) as how many
 * bars ago it was. On ties the latest bar counts (TA-Lib AROON: a high matched today is a fresh
 * high; for `highest`/`lowest` the value is the same either way). NaN before w values exist
 * and wherever the window holds a NaN. Serves `highest`, `lowest` and Chande's Aroon, which
 * looks back n bars *besides* the current one (w = n + 1, the age running from 0 to n).
 *
 * Keeps the current extreme and its bar, rescanning only when that bar leaves the window:
 * amortised O(1) per bar on price data, allocation-free. Resumable: `EXTREME_STATE` slots at
 * `base` of `state` (an extreme is exact, so it is the same whatever bar it started at).
 */
export function windowExtreme(
  x: Float64Array,
  w: number,
  sign: number,
  age: boolean,
  out: Float64Array,
  from: number,
  to: number,
  state?: Float64Array,
  base = 0,
): void {
  let best = -Infinity;
  let bestAt = -1;
  let nanAt = -1;
  if (resumes(state, from, base)) {
    best = state![base + 1]!;
    bestAt = state![base + 2]!;
    nanAt = state![base + 3]!;
  }
  let i = from;
  for (; i < to && i < w - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const first = i - w + 1;
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
    out[i] = nanAt >= first ? NaN : age ? i - bestAt : sign * best;
  }
  if (state !== undefined) {
    state[base] = to;
    state[base + 1] = best;
    state[base + 2] = bestAt;
    state[base + 3] = nanAt;
  }
}
