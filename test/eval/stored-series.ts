/**
 * Stored series for the one-number-per-bar suites (anchor.test.ts, carry.test.ts): h1 walks with
 * a flat stretch and gaps, as feeds leave them, and a series cut to a time range.
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
