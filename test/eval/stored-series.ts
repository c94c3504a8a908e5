/**
 * Stored series for the one-number-per-bar suites (anchor.test.ts, carry.test.ts): h1 walks with
 * a flat stretch and gaps, as feeds leave them, a series cut to a time range, and the
 * expressions and conditions both suites screen them with.
 */
import { prng, tickWalk, type ArrayBars } from "../kit/index.js";

/**
 * h1 bars of a symbol from `start`: a walk with a 25-bar flat stretch, a share `drop` of its
 * bars missing at random and, with `longGap`, one 20-bar gap.
 */
export function gappedSeries(seed: number, start: number, count: number, options: { drop: number; longGap: boolean }): ArrayBars {
  const rand = prng(seed);
  const flatAt = Math.floor(rand() * count);
  const walk = tickWalk({ seed, count, timeframe: "h1", start, vol: 0.01, flat: [flatAt, flatAt + 25] });
  const gapAt = options.longGap ? Math.floor(rand() * count) : count;
  const keep: number[] = [];
  for (let i = 0; i < count; i++) if (rand() > options.drop && (i < gapAt || i >= gapAt + 20)) keep.push(i);
  const pick = (c: ArrayLike<number>): Float64Array => Float64Array.from(keep, (i) => c[i]!);
  return { time: pick(walk.time), open: pick(walk.open), high: pick(walk.high), low: pick(walk.low), close: pick(walk.close), volume: pick(walk.volume) };
}

/** The bars of `bars` with open time in [from, to). */
export function cutBars(bars: ArrayBars, from: number, to: number): ArrayBars {
  const keep = (c: ArrayLike<number>): Float64Array => Float64Array.from(Array.from(c).filter((_, i) => bars.time[i]! >= from && bars.time[i]! < to));
  return { time: keep(bars.time), open: keep(bars.open), high: keep(bars.high), low: keep(bars.low), close: keep(bars.close), volume: keep(bars.volume) };
}

/** The expression families: recursive, cumulative, windowed, nested timeframes, offsets, crossings. */
export const FAMILIES = [
  "rsi(14)",
  "ema(close, 20)",
  "kama(10)",
  "obv",
  "change(obv, 3)",
  "adx(14)",
  "macd(12, 26)",
  "sma(close, 20)",
  "stdev(close, 10)",
  "highest(high, 15)",
  "h4::ema(close, 5)",
  "h4::rsi(6)",
  "d::close - d::close[1]",
  "ema(close, 9)[3]",
  "close - ema(close, 12)[1]",
  "atr(10)",
];

/** Conditions: every bar, a crossing, a short-circuit. */
export const CROSSINGS = ["true", "crossover(close, ema(close, 10))", "rsi(14) > 50 or close > sma(close, 20)"];
