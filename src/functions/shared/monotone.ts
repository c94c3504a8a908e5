import { resumes } from "../module.js";

/**
 * Whether x moved strictly in one direction (`up` true: rose) on each of the last n bars:
 * x[i − n] < x[i − n + 1] < … < x[i], so n comparisons over n + 1 values. An undefined or
 * non-finite value anywhere in those n + 1 bars makes a comparison false (decisions §1), so
 * the answer is false: a series cannot be shown to have risen through a gap. Also false on
 * the first n bars, where there is not enough history to see n moves.
 *
 * Counts the current run of strict moves from `from − n + 1` on, so each bar is O(1).
 * Resumable: state [bar, run].
 */
export function monotoneRun(
  x: Float64Array,
  n: number,
  up: boolean,
  out: Float64Array,
  from: number,
  to: number,
  state?: Float64Array,
): void {
  let run = 0;
  let i = Math.max(1, from - n + 1);
  if (resumes(state, from)) {
    run = state![1]!;
    i = from;
  }
  for (let j = from; j < to && j < i; j++) out[j] = 0;
  for (; i < to; i++) {
    const now = x[i]!;
    const before = x[i - 1]!;
    // v − v is 0 only for finite v: NaN and ±Infinity (a division by zero) break the run.
    const moved = now - now + (before - before) === 0 && (up ? now > before : now < before);
    run = moved ? run + 1 : 0;
    if (i >= from) out[i] = run >= n ? 1 : 0;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = run;
  }
}
