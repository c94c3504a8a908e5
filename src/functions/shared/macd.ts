import { resumes } from "../module.js";
import { windowMean } from "./flat.js";

/** Which MACD series `macdStream` writes. */
export const MACD_LINE = 0;
export const MACD_SIGNAL = 1;
export const MACD_HIST = 2;

/**
 * The MACD family in one streaming pass (Appel; TA-Lib MACD with SMA-seeded EMAs,
 * technicalindicators MACD with EMA oscillator and signal): line = ema(src, fast) −
 * ema(src, slow), defined where both EMAs are, i.e. from g = f + max(fast, slow) − 1 (f the
 * first defined input); signal = EMA(signal) of the line, seeded with the SMA of its first
 * `signal` values, so defined from g + signal − 1; hist = line − signal. Each EMA is seeded with
 * the SMA of its first n inputs and updated as `ema` is, so macd equals ema(fast) − ema(slow)
 * bit for bit.
 *
 * Recursive: streams from f and writes [from, to). Resumable (`MACD_STATE` slots) from its
 * first output on.
 */
export function macdStream(
  x: Float64Array,
  fast: number,
  slow: number,
  signal: number,
  part: number,
  out: Float64Array,
  from: number,
  to: number,
  state?: Float64Array,
): void {
  const aFast = 2 / (fast + 1);
  const aSlow = 2 / (slow + 1);
  const aSignal = 2 / (signal + 1);
  let i: number;
  let eFast: number;
  let eSlow: number;
  let sig = NaN;
  if (resumes(state, from)) {
    i = from;
    eFast = state![1]!;
    eSlow = state![2]!;
    sig = state![3]!;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const fastAt = f + fast - 1;
    const slowAt = f + slow - 1;
    const lineAt = Math.max(fastAt, slowAt);
    const signalAt = lineAt + signal - 1;
    const firstOut = part === MACD_LINE ? lineAt : signalAt;
    for (let j = from; j < to && j < firstOut; j++) out[j] = NaN;
    if (firstOut >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }

    // Both EMAs up to the first bar where the line exists.
    eFast = windowMean(x, f, fast);
    for (let j = fastAt + 1; j <= lineAt; j++) eFast += aFast * (x[j]! - eFast);
    eSlow = windowMean(x, f, slow);
    for (let j = slowAt + 1; j <= lineAt; j++) eSlow += aSlow * (x[j]! - eSlow);

    i = lineAt + 1;
    if (part === MACD_LINE) {
      if (lineAt >= from) out[lineAt] = eFast - eSlow;
      for (; i < from; i++) {
        eFast += aFast * (x[i]! - eFast);
        eSlow += aSlow * (x[i]! - eSlow);
      }
    } else {
      // The signal EMA's seed: the SMA of the line's first `signal` values, their value
      // exactly when they are all equal.
      const lineFirst = eFast - eSlow;
      sig = lineFirst;
      let flat = true;
      for (; i <= signalAt; i++) {
        const v = x[i]!;
        eFast += aFast * (v - eFast);
        eSlow += aSlow * (v - eSlow);
        const line = eFast - eSlow;
        sig += line;
        if (line !== lineFirst) flat = false;
      }
      sig = flat ? lineFirst : sig / signal;
      if (signalAt >= from) out[signalAt] = part === MACD_HIST ? eFast - eSlow - sig : sig;
      for (; i < from; i++) {
        const v = x[i]!;
        eFast += aFast * (v - eFast);
        eSlow += aSlow * (v - eSlow);
        sig += aSignal * (eFast - eSlow - sig);
      }
    }
  }

  if (part === MACD_LINE) {
    for (; i < to; i++) {
      const v = x[i]!;
      eFast += aFast * (v - eFast);
      eSlow += aSlow * (v - eSlow);
      out[i] = eFast - eSlow;
    }
  } else {
    const hist = part === MACD_HIST;
    for (; i < to; i++) {
      const v = x[i]!;
      eFast += aFast * (v - eFast);
      eSlow += aSlow * (v - eSlow);
      const line = eFast - eSlow;
      sig += aSignal * (line - sig);
      out[i] = hist ? line - sig : sig;
    }
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = eFast;
    state[2] = eSlow;
    state[3] = sig;
  }
}

/** Slots of `macdStream`'s state: the bar, both EMAs and the signal. */
export const MACD_STATE = 4;
