import { highest } from "../builtins/highest.js";
import { lowest } from "../builtins/lowest.js";
import { type KernelContext, resumes, subState } from "../module.js";
import { SMA_STATE, smaKernel } from "./sma.js";

/** Slots of `wilderRsi`'s state: the bar, both averages and both as of the last bar that moved. */
const RSI_STATE = 5;

/**
 * Lane's raw stochastic (%K before smoothing) over `[lo, to)` into `fastK`:
 * `100·(close − lowest(low, k))/(highest(high, k) − lowest(low, k))`, where the close sits in
 * the range of the last k bars. A range of zero (k bars at one price) leaves the position of
 * the close undefined: NaN, where TA-Lib writes 0 (decisions §1: a zero denominator is
 * undefined). The range is the difference of two of the window's values, so it is exactly 0
 * when the window is flat (shared/flat.ts) and never rounds to 0 otherwise.
 * Also serves the Stoch RSI, which passes the RSI as high, low and close.
 * Uses scratch buffers `base` and `base + 1` of `ctx` for the window extremes.
 */
export function fastStochastic(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  k: number,
  fastK: Float64Array,
  lo: number,
  to: number,
  ctx: KernelContext,
  base: number,
): void {
  const hh = ctx.scratch(base, to);
  const ll = ctx.scratch(base + 1, to);
  highest.kernel([high], [k], hh, lo, to, ctx);
  lowest.kernel([low], [k], ll, lo, to, ctx);
  for (let i = lo; i < to; i++) {
    const range = hh[i]! - ll[i]!;
    // NaN in the window propagates through hh/ll; 0/0 would also be NaN but x/0 is ±Infinity.
    fastK[i] = range === 0 ? NaN : (100 * (close[i]! - ll[i]!)) / range;
  }
}

/**
 * Wilder's RSI(n) of x into `out` over [from, to), as `rsi` defines it (seeded with the mean of
 * the first n changes, then RMA; 100 when the average loss is 0; a bar without change keeps
 * the RSI exactly), streamed from the first defined x. The arithmetic follows TA-Lib's order,
 * avg = (avg·(n − 1) + change)/n and RSI = 100·gain/(gain + loss), rather than `rsi`'s: equal
 * up to rounding, and the stochastic divides by the RSI's k-bar range, which amplifies
 * rounding where that range is small; the same operations as TA-Lib keep those bars
 * bit-identical to the reference. In a flat stretch the exact range is 0: the RSI is read from
 * the averages as of the last bar that moved (n > 1), so it holds exactly and the range is
 * exactly 0 (where TA-Lib divides the noise of its decaying averages).
 */
function wilderRsi(x: Float64Array, n: number, out: Float64Array, from: number, to: number, state?: Float64Array): void {
  const m = n - 1;
  let gain: number;
  let loss: number;
  // The averages as of the last bar that moved (or the seed): the RSI is their ratio.
  let movedGain: number;
  let movedLoss: number;
  let i: number;
  if (resumes(state, from)) {
    gain = state![1]!;
    loss = state![2]!;
    movedGain = state![3]!;
    movedLoss = state![4]!;
    i = from;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const seedAt = f + n;
    for (let j = from; j < to && j < seedAt; j++) out[j] = NaN;
    if (seedAt >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    gain = 0;
    loss = 0;
    for (let j = f + 1; j <= seedAt; j++) {
      const d = x[j]! - x[j - 1]!;
      if (d < 0) loss -= d;
      else gain += d;
    }
    gain /= n;
    loss /= n;
    movedGain = gain;
    movedLoss = loss;
    i = seedAt;
    const total = movedGain + movedLoss;
    if (i >= from) out[i] = total === 0 ? 100 : 100 * (movedGain / total);
    i++;
  }
  for (; i < to; i++) {
    const d = x[i]! - x[i - 1]!;
    gain *= m;
    loss *= m;
    if (d < 0) loss -= d;
    else if (d >= 0) gain += d;
    else gain = loss = NaN;
    gain /= n;
    loss /= n;
    if (d !== 0 || n === 1) {
      movedGain = gain;
      movedLoss = loss;
    }
    const total = movedGain + movedLoss;
    if (i >= from) out[i] = total === 0 ? 100 : 100 * (movedGain / total);
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = gain;
    state[2] = loss;
    state[3] = movedGain;
    state[4] = movedLoss;
  }
}

/**
 * Stoch RSI %K over `[lo, to)` into `kOut`: Wilder's RSI(n) of src, its stochastic over k bars
 * (where the RSI sits in its own k-bar range), then the SMA(smooth) of that. Uses scratch
 * buffers 0 to 3 of `ctx`.
 */
export function stochRsiK(
  src: Float64Array,
  n: number,
  k: number,
  smooth: number,
  kOut: Float64Array,
  lo: number,
  to: number,
  ctx: KernelContext,
  state?: Float64Array,
): void {
  const rawFrom = Math.max(0, lo - smooth + 1);
  const r = ctx.scratch(0, to);
  // The RSI values before `lo` the window reads: k − 1 for the stochastic, smooth − 1 for its SMA.
  const m = k + smooth - 2;
  const ring = 1 + RSI_STATE + SMA_STATE;
  const rsiState = subState(state, 1, RSI_STATE);
  const smaState = subState(state, 1 + RSI_STATE, SMA_STATE);
  if (resumes(state, lo)) {
    // The scratch buffer holds this call's bars only: the window's earlier RSI values come from the state.
    for (let j = Math.max(0, lo - m); j < lo; j++) r[j] = state![ring + j - (lo - m)]!;
    wilderRsi(src, n, r, lo, to, rsiState);
  } else {
    if (state !== undefined) state.fill(NaN);
    // RSI is recursive: it streams from the first defined src and writes only what the window needs.
    wilderRsi(src, n, r, Math.max(0, rawFrom - k + 1), to, rsiState);
  }
  const fastK = ctx.scratch(1, to);
  fastStochastic(r, r, r, k, fastK, rawFrom, to, ctx, 2);
  smaKernel([fastK], [smooth], kOut, lo, to, ctx, smaState);
  if (state !== undefined) {
    state[0] = to;
    for (let t = 0; t < m; t++) {
      const j = to - m + t;
      state[ring + t] = j >= 0 ? r[j]! : NaN;
    }
  }
}

/** Slots of `stochRsiK`'s state: the bar, the RSI's and the SMA's states, the last k + smooth − 2 RSI values. */
export function stochRsiStateSize(k: number, smooth: number): number {
  return 1 + RSI_STATE + SMA_STATE + k + smooth - 2;
}

