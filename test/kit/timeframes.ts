/**
 * Bars on timeframes, for the evaluator, store and service tests: seeded walks on one
 * timeframe, exact aggregation of fine bars into coarser ones (days open 00:00 UTC, weeks
 * Monday 00:00 UTC), so every timeframe of an instrument agrees and the in-progress coarser bar
 * is exactly what exists, and small ramps whose closes tell their index.
 */
import { TIMEFRAME_MS, type Bars, type Instrument, type Timeframe } from "../../src/types.js";
import { prng } from "./random.js";
import { MONDAY } from "./time.js";
import { BAR_COLUMNS } from "../../src/types.js";

/** Floors `ms` to the open time of its bar at `timeframe` (days at 00:00 UTC, weeks on Monday 00:00 UTC). */
export function barOpen(timeframe: Timeframe, ms: number): number {
  const step = TIMEFRAME_MS[timeframe];
  const monday = 4 * TIMEFRAME_MS.d; // 1970-01-05 was the first Monday of the epoch
  return timeframe === "w" ? ms - ((((ms - monday) % step) + step) % step) : ms - (((ms % step) + step) % step);
}

/**
 * `count` bars of `timeframe` whose open times end at `lastOpen`; close = `start + i`,
 * so a bar's close tells its index. high/low bracket open and close; volume = 100 + i.
 */
export function rampBars(timeframe: Timeframe, count: number, lastOpen: number, start = 100): Bars {
  const step = TIMEFRAME_MS[timeframe];
  const time = new Float64Array(count);
  const open = new Float64Array(count);
  const high = new Float64Array(count);
  const low = new Float64Array(count);
  const close = new Float64Array(count);
  const volume = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    time[i] = lastOpen - (count - 1 - i) * step;
    close[i] = start + i;
    open[i] = start + i - 0.5;
    high[i] = start + i + 1;
    low[i] = start + i - 1;
    volume[i] = 100 + i;
  }
  return { time, open, high, low, close, volume };
}

/** Bars whose columns are plain Float64Arrays (what the helpers build and mutate). */
export interface ArrayBars {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

export const FIELDS = BAR_COLUMNS;

export interface TickWalkOptions {
  seed: number;
  count: number;
  timeframe: Timeframe;
  /** Open time of the first bar. */
  start?: number;
  price?: number;
  /** Per-bar relative volatility. */
  vol?: number;
  /** Bars [a, b) hold one price with high = low = close = open (and zero volume). */
  flat?: readonly [number, number];
  /** Share of bars with zero volume. */
  zeroVolume?: number;
}

/**
 * A seeded random walk on one timeframe with consistent OHLC (low ≤ open, close ≤ high), prices
 * on a 0.01 tick (so ties, a close at the high, equal closes, happen as in real data) and
 * integer volumes.
 */
export function tickWalk(o: TickWalkOptions): ArrayBars {
  const rand = prng(o.seed);
  const n = o.count;
  const b = emptyBars(n);
  const dur = TIMEFRAME_MS[o.timeframe];
  const start = o.start ?? MONDAY;
  const vol = o.vol ?? 0.01;
  let price = o.price ?? 50 + rand() * 100;
  for (let i = 0; i < n; i++) {
    b.time[i] = start + i * dur;
    const flat = o.flat !== undefined && i >= o.flat[0] && i < o.flat[1];
    const open = price;
    if (flat) {
      b.open[i] = b.high[i] = b.low[i] = b.close[i] = open;
      b.volume[i] = 0;
      continue;
    }
    // Round to a tick so ties (close at the high, equal closes) happen as in real data.
    const close = Math.max(0.01, Math.round(open * (1 + (rand() - 0.5) * 2 * vol) * 100) / 100);
    const high = Math.round((Math.max(open, close) + rand() * open * vol) * 100) / 100;
    const low = Math.max(0.005, Math.round((Math.min(open, close) - rand() * open * vol) * 100) / 100);
    b.open[i] = open;
    b.close[i] = close;
    b.high[i] = Math.max(high, open, close);
    b.low[i] = Math.min(low, open, close);
    b.volume[i] = o.zeroVolume !== undefined && rand() < o.zeroVolume ? 0 : Math.floor(rand() * 10_000);
    price = close;
  }
  return b;
}

export function emptyBars(n: number): ArrayBars {
  return {
    time: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
}

/**
 * Aggregates fine bars into `tf` bars: open of the first, max high, min low, close of the last,
 * summed volume. The last bucket holds whatever fine bars exist (a bar in progress).
 */
export function aggregate(fine: ArrayBars, tf: Timeframe): ArrayBars {
  const starts: number[] = [];
  const groups: number[][] = [];
  for (let i = 0; i < fine.time.length; i++) {
    const s = barOpen(tf, fine.time[i]!);
    if (starts.length === 0 || starts[starts.length - 1] !== s) {
      starts.push(s);
      groups.push([]);
    }
    groups[groups.length - 1]!.push(i);
  }
  const out = emptyBars(starts.length);
  groups.forEach((g, k) => {
    out.time[k] = starts[k]!;
    out.open[k] = fine.open[g[0]!]!;
    out.close[k] = fine.close[g[g.length - 1]!]!;
    out.high[k] = Math.max(...g.map((i) => fine.high[i]!));
    out.low[k] = Math.min(...g.map((i) => fine.low[i]!));
    out.volume[k] = g.reduce((s, i) => s + fine.volume[i]!, 0);
  });
  return out;
}

/** The first `n` bars. */
export function head(b: ArrayBars, n: number): ArrayBars {
  const out = {} as ArrayBars;
  for (const f of FIELDS) out[f] = b[f].slice(0, n);
  return out;
}

/** The bars with open time before `end`. */
export function barsBefore(b: ArrayBars, end: number): ArrayBars {
  let n = 0;
  while (n < b.time.length && b.time[n]! < end) n++;
  return head(b, n);
}

/** A copy with plain number[] columns. */
export function asPlainArrays(b: Bars): Bars {
  return {
    time: Array.from(b.time),
    open: Array.from(b.open),
    high: Array.from(b.high),
    low: Array.from(b.low),
    close: Array.from(b.close),
    volume: Array.from(b.volume),
  };
}

/**
 * One instrument whose bars on every timeframe in `tfs` come from one walk on `finest`
 * (`count` bars, ending at `end` exclusive when given) aggregated exactly.
 */
export function multiTimeframe(
  symbol: string,
  seed: number,
  finest: Timeframe,
  count: number,
  tfs: readonly Timeframe[],
  options: { start?: number; vol?: number } = {},
): { symbol: string; bars: Partial<Record<Timeframe, ArrayBars>> } {
  const fine = tickWalk({ seed, count, timeframe: finest, start: options.start ?? MONDAY, vol: options.vol ?? 0.004 });
  const bars: Partial<Record<Timeframe, ArrayBars>> = {};
  for (const tf of tfs) bars[tf] = tf === finest ? fine : aggregate(fine, tf);
  return { symbol, bars };
}

/** Every timeframe's bars cut to those opening before `end` (coarser bars keep their partial aggregate only if re-aggregated). */
export function cutInstrument(
  inst: { symbol: string; bars: Partial<Record<Timeframe, ArrayBars>> },
  finest: Timeframe,
  end: number,
): Instrument & { bars: Partial<Record<Timeframe, ArrayBars>> } {
  const fine = barsBefore(inst.bars[finest]!, end);
  const bars: Partial<Record<Timeframe, ArrayBars>> = {};
  for (const tf of Object.keys(inst.bars) as Timeframe[]) bars[tf] = tf === finest ? fine : aggregate(fine, tf);
  return { symbol: inst.symbol, bars };
}

/** Symbols S000, S001, ... (fixed width, so string order is numeric order). */
export function symbolName(i: number): string {
  return `S${String(i).padStart(3, "0")}`;
}
