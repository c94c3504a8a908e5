/**
 * The bars an evaluation reads: checking them (or trusting the store's), one frame per plan
 * source pointed at the instrument being evaluated, and the one short-history rule.
 *
 * Bars a caller injects are checked once per instrument and source, in one pass over the time
 * column: finite, strictly increasing, and on the timeframe's grid where the market's grid is
 * known. Bars the store hands out (`fetchUniverse`) were checked when they were written and
 * read back ordered by time, so they carry a mark ({@link trustBars}) and skip that pass: over
 * 10,000 instruments it is a read of every time of every bar, about as long as the screen.
 */
import { RAW_SERIES, TIMEFRAME_MS, type Bars, type Instrument, type RawSeries, type Timeframe } from "../types.js";
import { alignmentCut, lastClosedIndex } from "../alignment.js";
import { XqlDataError } from "../errors.js";
import { isTrusted } from "../bars/trust.js";

// XqlDataError lives in src/errors.ts with its codes, below every room that raises it; the
// store's mark on its bars below both the store and the evaluator (src/bars/trust.ts).
export { XqlDataError };
export { isTrusted, trustBars, trustRead } from "../bars/trust.js";
let timePasses = 0;

/**
 * How many passes over a time column the checks have made in this process: one per
 * (instrument, source) of injected bars per run, none for trusted bars. For tests, which
 * assert the skip by this count rather than by timing.
 */
export function barTimePasses(): number {
  return timePasses;
}

/** The grid a timeframe's open times lie on: `(time − origin)` a whole multiple of `step`. */
interface Grid {
  readonly step: number;
  readonly origin: number;
}

/** Monday 1970-01-05 00:00 UTC: weekly bars open on Mondays (decisions §1). */
const FIRST_MONDAY = 4 * TIMEFRAME_MS.d;
const HOUR = TIMEFRAME_MS.h1;

/**
 * The grid of the market's bars, where the contract fixes it (decisions §1 and §2 "Sessions"):
 * CRYPTO is UTC-aligned throughout, weeks opening Monday; FOREX minutes and hours are aligned
 * to the UTC hour, and its h4, d and w bars open at 17:00 New York (21:00 or 22:00 UTC with
 * daylight saving), so on a whole UTC hour, which is what is checked here (the importer checks
 * the exact hour). Other configured markets have sessions of their own (an exchange's hourly
 * bars may open at :15 or :30 past the UTC hour): no grid is checked for them.
 */
function gridOf(market: string, timeframe: Timeframe): Grid | undefined {
  const step = TIMEFRAME_MS[timeframe];
  switch (market.toUpperCase()) {
    case "CRYPTO":
      return { step, origin: timeframe === "w" ? FIRST_MONDAY : 0 };
    case "FOREX":
      return { step: Math.min(step, HOUR), origin: 0 };
    default:
      return undefined;
  }
}

const EMPTY = new Float64Array(0);
const NO_BARS: Bars = { time: EMPTY, open: EMPTY, high: EMPTY, low: EMPTY, close: EMPTY, volume: EMPTY };

/** A bar column a slot reads: the raw series and the open time. */
export type Column = RawSeries | "time";

/** Each column's place in {@link Frame.float}, decided when a query is lowered, so reading one is an index, not a keyed lookup. */
export const COLUMN_INDEX: Readonly<Record<Column, number>> = { time: 0, open: 1, high: 2, low: 3, close: 4, volume: 5 };

/**
 * One plan source's bars for the instrument being evaluated. Made once per program and
 * repointed at each instrument's bars, so starting an instrument allocates nothing and slots
 * reach their frame by reference, not by a keyed lookup.
 */
export class Frame {
  bars: Bars = NO_BARS;
  length = 0;
  /** The bars {@link attach} was last given, and their count, before any {@link narrow}. */
  private attached: Bars = NO_BARS;
  private attachedLength = 0;
  /** Index of the latest bar that counts at the base bar being evaluated (aligned end). */
  end = -1;
  readonly duration: number;
  /** The raw columns the source reads, whose lengths are checked. */
  readonly columns: readonly RawSeries[];
  /**
   * The instrument's columns by {@link COLUMN_INDEX}, each the caller's Float64Array, or
   * undefined when given as another kind of array (then read through a copy, see `values.ts`).
   */
  readonly float: (Float64Array | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined];
  /** Per column given as something other than a Float64Array: its copy, by {@link COLUMN_INDEX}. */
  readonly copies: (ColumnCopy | undefined)[] = [undefined, undefined, undefined, undefined, undefined, undefined];
  private readonly grid: Grid | undefined;
  /** The {@link COLUMN_INDEX} of the time column and of every raw column the source reads. */
  private readonly readIndices: readonly number[];
  /** Where {@link prefetchLookback} leaves what it read, so that the reads are not optimised away. */
  touched = 0;
  /** The source's fetch F (`compile(q).fetch`): its anchors' step and the bars its warm-up counts on (anchor.ts). */
  fetchBars = 0;
  /** Whether a recursive function (or a cumulative one) runs on the source: its values depend on where the frame starts. */
  recursive = false;

  constructor(
    readonly timeframe: Timeframe,
    /** Bars the source needs at a base bar for it to be evaluated (the plan's minLookback). */
    readonly minLookback: number,
    series: readonly RawSeries[],
    market: string,
  ) {
    this.duration = TIMEFRAME_MS[timeframe];
    this.columns = RAW_SERIES.filter((name) => series.includes(name));
    this.grid = gridOf(market, timeframe);
    this.readIndices = [COLUMN_INDEX.time, ...this.columns.map((name) => COLUMN_INDEX[name])];
  }

  /**
   * Reads one value per cache line of the bars a run at {@link end} looks back over (its
   * minLookback, at most {@link PREFETCH_BARS}), in every column the source reads, before the
   * evaluation reads any of them. A universe's columns are far larger than the CPU's caches,
   * so the first read of each instrument's bars is a miss to memory: issued together, the
   * misses overlap, where the evaluator's own first reads, far apart in its instruction
   * stream, would wait for each in turn (a pattern screen and the example screen over 10,000
   * instruments took 10–20 % less CPU time, measured).
   */
  prefetchLookback(): void {
    const end = this.end;
    const first = Math.max(0, end - Math.min(this.minLookback, PREFETCH_BARS) + 1);
    let sum = 0;
    for (let k = 0; k < this.readIndices.length; k++) {
      const column = this.float[this.readIndices[k]!];
      if (column === undefined) continue;
      // Eight doubles to a 64-byte line: every eighth bar back from the latest, and the first.
      for (let i = end; i > first; i -= 8) sum += column[i]!;
      sum += column[first]!;
    }
    this.touched = sum;
  }

  /**
   * Drops the bars before index `from` (those before the source's anchor, anchor.ts): the frame
   * then starts at the anchor, and so does every recursion over it. The bars were checked (or
   * trusted) when attached; a suffix of them is as good.
   */
  narrow(from: number): void {
    if (from <= 0) return;
    const bars = this.bars;
    // Many screens over the same bars narrow them at the same anchor (an alert round, history's
    // passes): the suffix is made once per bars and anchor.
    const made = suffixes.get(bars);
    if (made !== undefined && made.from === from) {
      this.point(made.suffix, this.length - from);
      return;
    }
    // A column the source does not read may be absent or empty: it stays as it is.
    const cut = (column: ArrayLike<number>): ArrayLike<number> =>
      column === undefined || column.length === 0 ? column : ArrayBuffer.isView(column) ? (column as Float64Array).subarray(from) : (Array.prototype.slice.call(column, from) as number[]);
    const suffix: Bars = { time: cut(bars.time), open: cut(bars.open), high: cut(bars.high), low: cut(bars.low), close: cut(bars.close), volume: cut(bars.volume) };
    suffixes.set(bars, { from, suffix });
    // Not marked as the store's: the suffix never leaves the frame, and marking every pass's
    // (three per instrument in a history) grew the mark's weak set by as many entries.
    this.point(suffix, this.length - from);
  }

  /**
   * Points the frame back at the bars {@link attach} was last given, undoing {@link narrow}:
   * they were checked (or trusted) then, so they are not checked again (history's passes narrow
   * the same bars to each pass's anchors in turn).
   */
  reattach(): void {
    this.point(this.attached, this.attachedLength);
  }

  /** The index of the first bar opening at or after `time`. */
  firstAtOrAfter(time: number): number {
    return firstAtOrAfterTime(this.bars.time, 0, this.length, time, this.duration);
  }

  /** Points the frame at `bars` of `symbol`, checked unless trusted; the bar count. */
  attach(symbol: string, bars: Bars): number {
    let length: number;
    if (isTrusted(bars)) length = bars.time.length;
    else {
      length = checkColumns(symbol, this.timeframe, bars, this.columns);
      checkTimes(symbol, this.timeframe, bars.time, length, this.grid);
    }
    this.attached = bars;
    this.attachedLength = length;
    this.point(bars, length);
    return length;
  }

  /** Points the frame at bars already checked (or trusted), `length` of them. */
  private point(bars: Bars, length: number): void {
    this.bars = bars;
    this.length = length;
    this.end = length - 1;
    const float = this.float;
    float[0] = asFloat(bars.time);
    float[1] = asFloat(bars.open);
    float[2] = asFloat(bars.high);
    float[3] = asFloat(bars.low);
    float[4] = asFloat(bars.close);
    float[5] = asFloat(bars.volume);
  }
}

/**
 * The first index i in [lo, length) with `times[i] >= time` (length when there is none), the
 * times strictly increasing. Bars without gaps on a grid of `step` are found where the grid puts
 * them, checked by reading the two times around it; any other bars by bisection. (A bisection
 * over a time column no kernel reads is a dozen misses to memory, and a history over 10,000
 * instruments asks several per instrument: the anchors and ends of its passes.)
 */
export function firstAtOrAfterTime(times: ArrayLike<number>, lo: number, length: number, time: number, step: number): number {
  if (lo < length) {
    const guess = Math.min(length, Math.max(lo, lo + Math.ceil((time - Number(times[lo])) / step)));
    if ((guess === length || Number(times[guess]) >= time) && (guess === lo || Number(times[guess - 1]) < time)) return guess;
  }
  return lowerBound(times, lo, length, time);
}

/** The first index i in [lo, hi) with `a[i] >= x` (hi when there is none), `a` ascending: a bisection. */
export function lowerBound(a: ArrayLike<number>, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (Number(a[mid]) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The latest suffix {@link Frame.narrow} made of each bars, by the index it starts at (views: no bars copied). */
const suffixes = new WeakMap<Bars, { readonly from: number; readonly suffix: Bars }>();

/**
 * The most bars back {@link Frame.prefetchLookback} reads: a longer lookback is read as a
 * stream (a windowed kernel's block, a recursive one from the first bar), which the CPU's own
 * prefetcher follows after its first lines.
 */
const PREFETCH_BARS = 32;

/** A raw column copied into a Float64Array, valid on [lo, hi) for one instrument (`epoch`). */
export interface ColumnCopy {
  buffer: Float64Array;
  epoch: number;
  lo: number;
  hi: number;
}

function asFloat(column: ArrayLike<number> | undefined): Float64Array | undefined {
  return column instanceof Float64Array ? column : undefined;
}

/**
 * Points every frame at the instrument's bars. False when a source has no bars at all (the
 * instrument has no data for the query); throws {@link XqlDataError} for malformed bars.
 */
export function attachFrames(frames: readonly Frame[], instrument: Instrument): boolean {
  for (let k = 0; k < frames.length; k++) {
    const frame = frames[k]!;
    const bars = instrument.bars[frame.timeframe];
    if (!bars || frame.attach(instrument.symbol, bars) === 0) return false;
  }
  return true;
}

/** {@link Frame.prefetchLookback} for every frame, once {@link alignFrames} has set their ends. */
export function prefetchLookbacks(frames: readonly Frame[]): void {
  for (let k = 0; k < frames.length; k++) frames[k]!.prefetchLookback();
}

/**
 * The short-history rule, the one place it is written: makes base bar `t` the latest, every
 * other frame ending at its last bar closed by t's close (decisions §1 alignment), and tells
 * whether every source then has at least its minLookback bars (minLookback counts aligned
 * bars). `run` skips an instrument for which it is false at its latest bar (`shortHistory`);
 * `history` skips the window bars at which it is false, as a run truncated there would.
 */
export function alignFrames(frames: readonly Frame[], t: number): boolean {
  const base = frames[0]!;
  base.end = t;
  let enough = t + 1 >= base.minLookback;
  if (frames.length === 1) return enough;
  const baseClose = alignmentCut(base.bars.time[t]!, base.duration);
  for (let i = 1; i < frames.length; i++) {
    const frame = frames[i]!;
    frame.end = lastClosedIndex(frame.bars.time, frame.length, frame.duration, baseClose);
    if (frame.end + 1 < frame.minLookback) enough = false;
  }
  return enough;
}

/**
 * Whether every frame with a recursion, aligned at a base bar (`alignFrames`), holds at least
 * its fetch of bars up to that bar: the bars its warm-up counts on. Fewer (a young series, a
 * short store, a gap) leave a recursion nearer its seed than the warm-up promises
 * (`meta.unconverged`). A source without one is exact on its minLookback.
 */
export function converged(frames: readonly Frame[]): boolean {
  for (let k = 0; k < frames.length; k++) if (!convergedAt(frames[k]!, frames[k]!.end)) return false;
  return true;
}

/** {@link converged} for one frame aligned at its bar `end`. */
export function convergedAt(frame: Frame, end: number): boolean {
  return !(frame.recursive && end + 1 < frame.fetchBars);
}

/** The time column's length, after checking that every column the source reads has as many values. */
function checkColumns(symbol: string, timeframe: Timeframe, bars: Bars, columns: readonly RawSeries[]): number {
  const time = bars.time;
  if (!time || typeof time.length !== "number") {
    throw new XqlDataError("bars-columns", { symbol, timeframe, problem: "bars have no time column" });
  }
  const length = time.length;
  for (let k = 0; k < columns.length; k++) {
    const name = columns[k]!;
    const column = bars[name];
    if (!column || column.length !== length) {
      throw new XqlDataError("bars-columns", { symbol, timeframe, problem: `column '${name}' has ${column ? column.length : "no"} values for ${length} bars` });
    }
  }
  return length;
}

/**
 * One pass over the times: each greater than the one before (so none is NaN, and none repeats),
 * the last finite (so all are), each on the grid when there is one.
 */
function checkTimes(symbol: string, timeframe: Timeframe, time: ArrayLike<number>, length: number, grid: Grid | undefined): void {
  timePasses++;
  let previous = -Infinity;
  if (grid === undefined) {
    for (let i = 0; i < length; i++) {
      const t = time[i]!;
      if (!(t > previous)) notIncreasing(symbol, timeframe, i, t, previous);
      previous = t;
    }
  } else {
    const { step, origin } = grid;
    for (let i = 0; i < length; i++) {
      const t = time[i]!;
      if (!(t > previous)) notIncreasing(symbol, timeframe, i, t, previous);
      // A whole number of steps from the origin: the quotient has no fraction. (The remainder
      // operator on doubles costs a library call per bar; this is a divide and a floor.)
      const steps = (t - origin) / step;
      if (steps !== Math.floor(steps)) offGrid(symbol, timeframe, i, t, grid);
      previous = t;
    }
  }
  if (length > 0 && !Number.isFinite(time[length - 1]!)) {
    throw new XqlDataError("bars-times", { symbol, timeframe, problem: `bar time ${time[length - 1]} is not finite` });
  }
}

function notIncreasing(symbol: string, timeframe: Timeframe, i: number, t: number, previous: number): never {
  throw new XqlDataError("bars-times", { symbol, timeframe, problem: `bar times must be finite and strictly increasing, oldest first (time[${i}] = ${t} after ${previous})` });
}

function offGrid(symbol: string, timeframe: Timeframe, i: number, t: number, grid: Grid): never {
  throw new XqlDataError("bars-times", { symbol, timeframe, problem: `bar time ${dateOf(t)}(time[${i}] = ${t}) is not on the ${timeframe} grid (its bars open ${gridWords(grid)})` });
}

/** The ISO date and a space, or nothing for a time outside Date's range. */
function dateOf(t: number): string {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? "" : `${d.toISOString()} `;
}

function gridWords({ step, origin }: Grid): string {
  if (origin === FIRST_MONDAY) return "on Monday 00:00 UTC";
  if (step === TIMEFRAME_MS.d) return "at 00:00 UTC";
  if (step > HOUR) return `every ${step / HOUR} hours from 00:00 UTC`;
  if (step === HOUR) return "on the whole hour, UTC";
  return `every ${step / 60_000} minutes from the whole hour`;
}
