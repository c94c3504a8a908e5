import { resumes } from "../module.js";

/** Which line of Wilder's directional movement system `directional` writes. */
export const PLUS_DI = 0;
export const MINUS_DI = 1;
export const DX = 2;
export const ADX = 3;

/**
 * Wilder's directional movement system (New Concepts in Technical Trading Systems, 1978;
 * TA-Lib PLUS_DI, MINUS_DI, DX, ADX), streamed from the first bar f where high, low and close
 * are all defined. On each later bar, up = high − high[1] and down = low[1] − low; +DM = up
 * when up > down and up > 0, −DM = down when down > up and down > 0, else 0 (an inside bar or
 * equal moves count for neither). TR is the true range. Wilder keeps running *sums*: the first
 * n − 1 bars are added up, and from bar f + n on each sum S becomes S − S/n + value, so the
 * first DI is at f + n. +DI = 100·S(+DM)/S(TR), −DI likewise; DX = 100·|+DI − −DI|/(+DI + −DI);
 * ADX is the mean of the first n DX values, then Wilder's average (adx·(n − 1) + dx)/n, first
 * at f + 2n − 1.
 *
 * A bar without range (high = low = the previous close: no true range, and so no directional
 * movement either) multiplies all three sums by (n − 1)/n, which for n > 1 leaves +DI, −DI and
 * DX exactly where they were: they are read from the sums as of the last bar with a range, so a
 * flat stretch holds them bit for bit (docs/functions-reference.md, "Flat windows"). With
 * n = 1 the factor is 0: such a bar empties the sums, and the lines are undefined there.
 *
 * Undefined values: S(TR) = 0 (no range since f, e.g. a flat start) leaves both DI undefined,
 * and +DI + −DI = 0 (no directional movement since f) leaves DX undefined, where TA-Lib writes
 * 0 (it also does so below 1e-14, which on sub-penny prices is a real range: the exact ratio
 * is kept). ADX is defined from f + 2n − 1 all the same, as Wilder's procedure and TA-Lib
 * have it: ADX measures trend strength, and a bar whose DX is undefined (no directional
 * movement) has none, so among the n DX that seed the average it counts 0 (the seed is their
 * sum over n), and later it leaves ADX where it was (after any movement the decayed sums only
 * return to 0 by underflow). So a flat start has ADX 0 and DI, DX undefined. A NaN in the
 * bars after f poisons the sums from there on.
 *
 * Resumable (`DIRECTIONAL_STATE` slots), carried from the first DI on.
 */
export function directional(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  n: number,
  part: number,
  out: Float64Array,
  from: number,
  to: number,
  state?: Float64Array,
): void {
  let sPlus: number;
  let sMinus: number;
  let sTr: number;
  // ADX state: DX values summed until n of them seed the average.
  let adx: number;
  let seedCount: number;
  let seedSum: number;
  // The sums as of the last bar with a range (or the first DI): the lines are their ratios.
  let movedPlus: number;
  let movedMinus: number;
  let movedTr: number;
  let i: number;
  let firstDi: number;
  if (resumes(state, from)) {
    i = from;
    firstDi = -1;
    sPlus = state![1]!;
    sMinus = state![2]!;
    sTr = state![3]!;
    adx = state![4]!;
    seedCount = state![5]!;
    seedSum = state![6]!;
    movedPlus = state![7]!;
    movedMinus = state![8]!;
    movedTr = state![9]!;
  } else {
    let f = 0;
    while (f < to && (high[f]! !== high[f]! || low[f]! !== low[f]! || close[f]! !== close[f]!)) f++;
    firstDi = f + n;
    for (let j = from; j < to && j < firstDi; j++) out[j] = NaN;
    if (firstDi >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    sPlus = 0;
    sMinus = 0;
    sTr = 0;
    i = f + 1;
    for (; i < firstDi; i++) {
      const up = high[i]! - high[i - 1]!;
      const down = low[i - 1]! - low[i]!;
      if (down > 0 && up < down) sMinus += down;
      else if (up > 0 && up > down) sPlus += up;
      sTr += trueRange(high[i]!, low[i]!, close[i - 1]!);
    }
    adx = NaN;
    seedCount = 0;
    seedSum = 0;
    movedPlus = NaN;
    movedMinus = NaN;
    movedTr = NaN;
  }
  for (; i < to; i++) {
    const up = high[i]! - high[i - 1]!;
    const down = low[i - 1]! - low[i]!;
    sMinus -= sMinus / n;
    sPlus -= sPlus / n;
    if (down > 0 && up < down) sMinus += down;
    else if (up > 0 && up > down) sPlus += up;
    // NaN bars make up and down NaN (both tests false): the true range carries the NaN.
    else if (up !== up || down !== down) sPlus = sMinus = NaN;
    const tr = trueRange(high[i]!, low[i]!, close[i - 1]!);
    sTr = sTr - sTr / n + tr;
    if (tr !== 0 || i === firstDi || n === 1) {
      movedPlus = sPlus;
      movedMinus = sMinus;
      movedTr = sTr;
    }
    // DX, Wilder's directional index of the sums as of the last bar with a range (NaN when the range
    // or the directional movement is 0, or a bar is NaN), computed here rather
    // than called: a double returned by a call not inlined is boxed, one heap number per bar.
    let dx = NaN;
    if ((part === ADX || part === DX) && movedTr !== 0) {
      const minusDi = 100 * (movedMinus / movedTr);
      const plusDi = 100 * (movedPlus / movedTr);
      const sum = minusDi + plusDi;
      dx = sum === 0 ? NaN : 100 * (Math.abs(minusDi - plusDi) / sum);
    }
    if (part === ADX) {
      if (sTr !== sTr) {
        // A NaN bar: the sums are poisoned, and so is the average.
        adx = seedSum = NaN;
      } else if (seedCount < n) {
        // No range or no directional movement yet: no trend strength to add (TA-Lib's seed).
        if (dx === dx) seedSum += dx;
        if (++seedCount === n) adx = seedSum / n;
      } else if (dx === dx) {
        adx = (adx * (n - 1) + dx) / n;
      }
      if (i >= from) out[i] = adx;
    } else if (i >= from) {
      if (part === DX) out[i] = dx;
      else out[i] = movedTr === 0 ? NaN : 100 * ((part === PLUS_DI ? movedPlus : movedMinus) / movedTr);
    }
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = sPlus;
    state[2] = sMinus;
    state[3] = sTr;
    state[4] = adx;
    state[5] = seedCount;
    state[6] = seedSum;
    state[7] = movedPlus;
    state[8] = movedMinus;
    state[9] = movedTr;
  }
}

/** Slots of `directional`'s state: the bar, Wilder's three sums, the ADX seed and average, the sums as of the last bar with a range. */
export const DIRECTIONAL_STATE = 10;

/** Wilder's true range: the bar's range extended to the previous close (gaps count). */
function trueRange(h: number, l: number, previousClose: number): number {
  return Math.max(h - l, Math.max(Math.abs(h - previousClose), Math.abs(l - previousClose)));
}
