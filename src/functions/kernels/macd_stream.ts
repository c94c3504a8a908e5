/** Which MACD series `macdStream` writes. */
export const MACD_LINE = 0;
export const MACD_SIGNAL = 1;
export const MACD_HIST = 2;

/**
 * The MACD family in one streaming pass (Appel; TA-Lib MACD with SMA-seeded EMAs,
 * technicalindicators MACD): line = ema(src, fast) − ema(src, slow), defined where both EMAs
 * are, i.e. from g = f + max(fast, slow) − 1 (f the first defined input); signal = EMA(signal)
 * of the line, seeded with the SMA of its first `signal` values, so defined from g + signal − 1;
 * hist = line − signal. Each EMA is seeded with the SMA of its first n inputs, as `ema` is.
 *
 * Recursive: streams over [0, to) and writes every bar up to `to`. The phase branches below
 * are taken the same way for long runs of bars, so they predict well.
 */
export function macdStream(
  x: Float64Array,
  fast: number,
  slow: number,
  signal: number,
  part: number,
  out: Float64Array,
  to: number,
): void {
  const aFast = 2 / (fast + 1);
  const aSlow = 2 / (slow + 1);
  const aSignal = 2 / (signal + 1);
  let i = 0;
  for (; i < to && x[i]! !== x[i]!; i++) out[i] = NaN;
  const fastAt = i + fast - 1;
  const slowAt = i + slow - 1;
  const lineAt = Math.max(fastAt, slowAt);
  const signalAt = lineAt + signal - 1;
  let eFast = 0;
  let eSlow = 0;
  let sumLine = 0;
  let sig = 0;
  for (; i < to; i++) {
    const v = x[i]!;
    if (i < fastAt) eFast += v;
    else if (i === fastAt) eFast = (eFast + v) / fast;
    else eFast += aFast * (v - eFast);
    if (i < slowAt) eSlow += v;
    else if (i === slowAt) eSlow = (eSlow + v) / slow;
    else eSlow += aSlow * (v - eSlow);
    if (i < lineAt) {
      out[i] = NaN;
      continue;
    }
    const line = eFast - eSlow;
    if (part === MACD_LINE) {
      out[i] = line;
      continue;
    }
    if (i < signalAt) {
      sumLine += line;
      out[i] = NaN;
      continue;
    }
    if (i === signalAt) sig = (sumLine + line) / signal;
    else sig += aSignal * (line - sig);
    out[i] = part === MACD_SIGNAL ? sig : line - sig;
  }
}
