import { seedMean } from "./flat.js";

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
 * bit for bit, and is exactly 0 on a constant series (both seeds are the price: shared/flat.ts).
 *
 * Recursive: streams from f and writes [from, to).
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
): void {
  const aFast = 2 / (fast + 1);
  const aSlow = 2 / (slow + 1);
  const aSignal = 2 / (signal + 1);
  let f = 0;
  while (f < to && x[f]! !== x[f]!) f++;
  const fastAt = f + fast - 1;
  const slowAt = f + slow - 1;
  const lineAt = Math.max(fastAt, slowAt);
  const signalAt = lineAt + signal - 1;
  const firstOut = part === MACD_LINE ? lineAt : signalAt;
  for (let i = from; i < to && i < firstOut; i++) out[i] = NaN;
  if (firstOut >= to) return;

  // Both EMAs up to the first bar where the line exists.
  let eFast = seedMean(x, f, fastAt);
  for (let j = fastAt + 1; j <= lineAt; j++) eFast += aFast * (x[j]! - eFast);
  let eSlow = seedMean(x, f, slowAt);
  for (let j = slowAt + 1; j <= lineAt; j++) eSlow += aSlow * (x[j]! - eSlow);

  let i = lineAt + 1;
  if (part === MACD_LINE) {
    if (lineAt >= from) out[lineAt] = eFast - eSlow;
    for (; i < from; i++) {
      eFast += aFast * (x[i]! - eFast);
      eSlow += aSlow * (x[i]! - eSlow);
    }
    for (; i < to; i++) {
      const v = x[i]!;
      eFast += aFast * (v - eFast);
      eSlow += aSlow * (v - eSlow);
      out[i] = eFast - eSlow;
    }
    return;
  }

  // The signal EMA's seed: the SMA of the line's first `signal` values.
  let sig = eFast - eSlow;
  for (; i <= signalAt; i++) {
    const v = x[i]!;
    eFast += aFast * (v - eFast);
    eSlow += aSlow * (v - eSlow);
    sig += eFast - eSlow;
  }
  sig /= signal;
  const hist = part === MACD_HIST;
  if (signalAt >= from) out[signalAt] = hist ? eFast - eSlow - sig : sig;
  for (; i < from; i++) {
    const v = x[i]!;
    eFast += aFast * (v - eFast);
    eSlow += aSlow * (v - eSlow);
    sig += aSignal * (eFast - eSlow - sig);
  }
  for (; i < to; i++) {
    const v = x[i]!;
    eFast += aFast * (v - eFast);
    eSlow += aSlow * (v - eSlow);
    const line = eFast - eSlow;
    sig += aSignal * (line - sig);
    out[i] = hist ? line - sig : sig;
  }
}
