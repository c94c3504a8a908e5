/**
 * Aggregating finer bars into a coarser timeframe (decisions §2 Data): open of the first bar of
 * the period, high max, low min, close of the last, volume summed in time order; the bar's time
 * is the period's start ({@link periodRange}). A period without finer bars has no bar. The same
 * arithmetic in the same order everywhere (the store's writes, `deriveTimeframes`), so a derived
 * bar is bit-identical whoever builds it.
 */
import type { Bars, OneBar, Timeframe } from "../types.js";
import { BAR_COLUMNS } from "../types.js";
import { type PeriodRange, type Session, periodRange, sessionOf } from "./periods.js";

/** One coarse bar as it is built. */
export type CoarseBar = OneBar;

/**
 * Folds finer bars, given in increasing time order, into coarse bars of one timeframe: `add`
 * returns the bar it just closed (when the new bar opens a later period), `finish` the last one.
 */
export class BarAggregator {
  private readonly session: Session;
  private range: PeriodRange | undefined;
  /** The bar being built; `time` is NaN before the first bar. */
  readonly current: CoarseBar = { time: Number.NaN, open: 0, high: 0, low: 0, close: 0, volume: 0 };
  private readonly done: CoarseBar = { time: Number.NaN, open: 0, high: 0, low: 0, close: 0, volume: 0 };

  constructor(
    readonly timeframe: Timeframe,
    market: string | Session,
  ) {
    this.session = market === "utc" || market === "forex" ? market : sessionOf(market);
  }

  /** The period `resume` found last: an append resumes one aggregator for thousands of symbols, all in the same period. */
  private resumed: PeriodRange | undefined;

  /** Starts from a coarse bar already built from the finer bars before the next `add` (an append to its period). */
  resume(bar: CoarseBar): void {
    const known = this.resumed;
    this.range = known !== undefined && known.start === bar.time ? known : (this.resumed = periodRange(bar.time, this.timeframe, this.session));
    Object.assign(this.current, bar);
  }

  /** {@link add} of bar `i` of `c`. */
  addAt(c: Bars, i: number): CoarseBar | undefined {
    // The values are read here, not passed on: a call not inlined boxes each double it is
    // given, and a store's import adds every bar to three aggregators (h4, d, w).
    const time = c.time[i]!;
    const range = this.range;
    if (range !== undefined && time >= range.from && time < range.to) {
      this.fold(c.high[i]!, c.low[i]!, c.close[i]!, c.volume[i]!);
      return undefined;
    }
    return this.open(time, c.open[i]!, c.high[i]!, c.low[i]!, c.close[i]!, c.volume[i]!);
  }

  /**
   * Adds one finer bar (later than every bar added so far). Returns the coarse bar this closed
   * (a shared object, valid until the next call), or undefined while the period goes on.
   */
  add(time: number, open: number, high: number, low: number, close: number, volume: number): CoarseBar | undefined {
    const range = this.range;
    if (range !== undefined && time >= range.from && time < range.to) {
      this.fold(high, low, close, volume);
      return undefined;
    }
    return this.open(time, open, high, low, close, volume);
  }

  /** A finer bar of the period in progress folded into its bar. */
  private fold(high: number, low: number, close: number, volume: number): void {
    const c = this.current;
    if (high > c.high) c.high = high;
    if (low < c.low) c.low = low;
    c.close = close;
    c.volume = c.volume + volume;
  }

  /** A finer bar of a new period: the bar in progress (if any) closes, the new one starts from it. */
  private open(time: number, open: number, high: number, low: number, close: number, volume: number): CoarseBar | undefined {
    const c = this.current;
    let closed: CoarseBar | undefined;
    if (!Number.isNaN(c.time)) {
      closed = Object.assign(this.done, c);
    }
    const next = periodRange(time, this.timeframe, this.session);
    this.range = next;
    c.time = next.start;
    c.open = open;
    c.high = high;
    c.low = low;
    c.close = close;
    c.volume = volume;
    return closed;
  }

  /** The bar in progress (a shared object), or undefined when nothing was added; the aggregator is then empty. */
  finish(): CoarseBar | undefined {
    if (Number.isNaN(this.current.time)) return undefined;
    const last = Object.assign(this.done, this.current);
    this.current.time = Number.NaN;
    this.range = undefined;
    return last;
  }
}

/** Six Float64Array columns of bars. */
export interface PackedColumns {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** The columns in the order {@link packedColumns} lays them out (the store's blocks pack them so too). */
const PACKED_ORDER = BAR_COLUMNS;

/** Columns for `n` bars in one new array, one column after another in {@link PACKED_ORDER}. */
export function packedColumns(n: number): PackedColumns {
  // Six views straight on one buffer: no view of the whole to cut them from.
  const buffer = new ArrayBuffer(n * 48);
  return {
    time: new Float64Array(buffer, 0, n),
    open: new Float64Array(buffer, n * 8, n),
    high: new Float64Array(buffer, n * 16, n),
    low: new Float64Array(buffer, n * 24, n),
    close: new Float64Array(buffer, n * 32, n),
    volume: new Float64Array(buffer, n * 40, n),
  };
}

/** Growable Float64Array columns of bars, oldest first. */
export class BarColumns {
  length = 0;
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;

  constructor(capacity = 16) {
    // One allocation for the six columns: a write appending to 10,000 series makes tens of
    // thousands of these, and each backing store is work for the allocator and the collector.
    const c = packedColumns(capacity);
    this.time = c.time;
    this.open = c.open;
    this.high = c.high;
    this.low = c.low;
    this.close = c.close;
    this.volume = c.volume;
  }

  push(time: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (this.length === this.time.length) this.grow();
    const i = this.length++;
    this.time[i] = time;
    this.open[i] = open;
    this.high[i] = high;
    this.low[i] = low;
    this.close[i] = close;
    this.volume[i] = volume;
  }

  pushBar(bar: CoarseBar): void {
    this.push(bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume);
  }

  /**
   * Appends bars `from` to `to` (excluded) of `c`, all six columns: the one copy of a range of
   * bars, a column at a time (growing at most once), for every writer that gathers bars.
   */
  pushRange(c: Bars, from = 0, to = c.time.length): void {
    const n = to - from;
    if (n <= 0) return;
    while (this.length + n > this.time.length) this.grow();
    for (const name of PACKED_ORDER) {
      const source = c[name];
      const target = this[name];
      if (source instanceof Float64Array) target.set(source.subarray(from, to), this.length);
      else for (let i = 0; i < n; i++) target[this.length + i] = source[from + i]!;
    }
    this.length += n;
  }

  /** The columns cut to length (views over the same memory; the columns themselves when full). */
  bars(): Bars & { time: Float64Array; open: Float64Array; high: Float64Array; low: Float64Array; close: Float64Array; volume: Float64Array } {
    const n = this.length;
    if (n === this.time.length) return { time: this.time, open: this.open, high: this.high, low: this.low, close: this.close, volume: this.volume };
    return {
      time: this.time.subarray(0, n),
      open: this.open.subarray(0, n),
      high: this.high.subarray(0, n),
      low: this.low.subarray(0, n),
      close: this.close.subarray(0, n),
      volume: this.volume.subarray(0, n),
    };
  }

  private grow(): void {
    const c = packedColumns(Math.max(16, this.time.length * 2));
    for (const name of PACKED_ORDER) c[name].set(this[name]);
    this.time = c.time;
    this.open = c.open;
    this.high = c.high;
    this.low = c.low;
    this.close = c.close;
    this.volume = c.volume;
  }

}

/** Aggregates bars (oldest first, strictly increasing times) into `tf` periods of `market`. */
export function aggregateBars(fine: Bars, tf: Timeframe, market: string | Session): Bars {
  const aggregator = new BarAggregator(tf, market);
  const out = new BarColumns(Math.max(16, Math.ceil(fine.time.length / 4)));
  const n = fine.time.length;
  for (let i = 0; i < n; i++) {
    const closed = aggregator.addAt(fine, i);
    if (closed) out.pushBar(closed);
  }
  const last = aggregator.finish();
  if (last) out.pushBar(last);
  return out.bars();
}
