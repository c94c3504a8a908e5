/**
 * How bars are laid out in a store (both backends), schema version 4:
 *
 * - `bar_blocks`: one row per time-aligned block of at most {@link BLOCK_BARS} bars of one
 *   (market, timeframe, symbol), its bars one BLOB / bytea of little-endian float64 values,
 *   column after column: n times, n opens, n highs, n lows, n closes, n volumes (the bytes of
 *   Float64Arrays, one value the reader copies straight into its columns). Block `b` of a
 *   timeframe covers the open times `[b · BLOCK_BARS · dur, (b + 1) · BLOCK_BARS · dur)`, so a
 *   write rewrites exactly the blocks its span touches, and "the latest N bars" reads a few
 *   blocks per symbol. One value per block, not one per column: a cold read of a market is
 *   bound by the values the driver hands over, six times fewer this way.
 * - `series`, the catalog: one row per (market, timeframe, symbol) with its count, first and
 *   last times, whether it is derived, the newest block row's number, and its **tail**: the
 *   newest bars, kept in the catalog row rather than in a block (at least the latest bar, at
 *   most a few dozen). Appending a closed bar, or updating a derived bar still in progress,
 *   rewrites that small row only; the tail is sealed into its block once it holds
 *   {@link tailLimit} bars, a number that differs between series so that appends to thousands
 *   of series in step do not all seal at the same bar.
 *
 * Invariant: every tail bar is later than every block bar of the series, and a series that
 * holds any bar holds at least one in its tail.
 */
import type { Bars, RawSeries, Timeframe } from "../types.js";
import { BAR_COLUMNS, RAW_SERIES, TIMEFRAME_MS } from "../types.js";
import { packedColumns } from "../sessions/aggregate.js";

/** Bars per block at most (fewer where the market has gaps: weekends, holidays). */
export const BLOCK_BARS = 256;

/** The block holding open time `t` at `tf`. */
export function blockOf(t: number, tf: Timeframe): number {
  return Math.floor(t / (BLOCK_BARS * TIMEFRAME_MS[tf]));
}

/** Open time where block `b` of `tf` starts. */
export function blockStart(b: number, tf: Timeframe): number {
  return b * BLOCK_BARS * TIMEFRAME_MS[tf];
}

/** The six columns of a bar, in the order blocks and tails store them. */
export const COLUMNS = BAR_COLUMNS;
export type Column = (typeof COLUMNS)[number];

/** The place of each raw series in packed bars (time is 0). */
export const RAW_COLUMN: Readonly<Record<RawSeries, number>> = { open: 1, high: 2, low: 3, close: 4, volume: 5 };

/** Bars as Float64Array columns, oldest first. */
export interface Columns {
  /** Open times, UTC ms, strictly increasing. */
  time: Float64Array;
  /** Opening prices. */
  open: Float64Array;
  /** Highest prices. */
  high: Float64Array;
  /** Lowest prices. */
  low: Float64Array;
  /** Closing prices. */
  close: Float64Array;
  /** Traded volumes. */
  volume: Float64Array;
}

/** Columns of no bars. */
export const NO_COLUMNS: Columns = {
  time: new Float64Array(0),
  open: new Float64Array(0),
  high: new Float64Array(0),
  low: new Float64Array(0),
  close: new Float64Array(0),
  volume: new Float64Array(0),
};

/** Identifies one series of a store. */
export interface SeriesKey {
  market: string;
  timeframe: Timeframe;
  symbol: string;
}

/** One catalog row: what a series holds, and its tail. */
export interface CatalogRow extends SeriesKey {
  derived: boolean;
  bars: number;
  firstTime: number;
  lastTime: number;
  /** The newest block row's number, or null when the series has no block row (all in the tail). */
  sealedBlock: number | null;
  /** The newest bars, later than every block bar; at least one. */
  tail: Tail;
  /**
   * Where the backend keeps the stored row, when it says (SQLite's rowid): the next write of the
   * row goes straight there instead of looking its key up. Not data: never compared or stored.
   */
  place?: number;
}

/**
 * A catalog row: every row is made here (or by a backend's reader with the same properties in
 * the same order, `place` included), so all of them share one shape. Rows spread from others
 * and given `place` later each had a shape of their own: 37,000 of them in an import's heap
 * (13 MB), and every read of a row's key was a lookup by name.
 */
export function catalogRowOf(key: SeriesKey, derived: boolean, bars: number, firstTime: number, lastTime: number, sealedBlock: number | null, tail: Tail, place?: number): CatalogRow {
  return { market: key.market, timeframe: key.timeframe, symbol: key.symbol, derived, bars, firstTime, lastTime, sealedBlock, tail, place };
}

/**
 * A series' tail: its bars packed column after column in one array (n times, then n opens,
 * highs, lows, closes and volumes), the layout it is stored in. One array, not six columns: a
 * write appending to 10,000 symbols makes 40,000 new tails that live on in the catalog cache,
 * and every object each one brought was the collector's work.
 */
export type Tail = Float64Array;

/** Bars in a tail. */
export function tailCount(tail: Tail): number {
  return tail.length / 6;
}

/** Open time of the tail's first bar. */
export function tailFirst(tail: Tail): number {
  return tail[0]!;
}

/** Open time of the tail's last bar. */
export function tailLast(tail: Tail): number {
  return tail[tail.length / 6 - 1]!;
}

/** A tail's bars as columns (views). */
export function tailColumns(tail: Tail): Columns {
  const n = tail.length / 6;
  return {
    time: tail.subarray(0, n),
    open: tail.subarray(n, 2 * n),
    high: tail.subarray(2 * n, 3 * n),
    low: tail.subarray(3 * n, 4 * n),
    close: tail.subarray(4 * n, 5 * n),
    volume: tail.subarray(5 * n, 6 * n),
  };
}

/**
 * Room for a tail of `n` bars: a slice of an 8 KB array shared by the tails made after it (a
 * large tail has an array of its own). An append to 10,000 symbols makes 40,000 tails: one
 * array each made that much more work for the allocator and the collector (the append took a
 * quarter longer). Slices of tails only: in Node's pool of small buffers a tail shared its slab
 * with the block rows of its write, and kept the slab alive long after them (40 MB held for the
 * 40,000 one-bar tails of an import). An array lives as long as one of its tails: at most the
 * tails one write made together.
 */
export function newTail(n: number): Tail {
  const values = n * 6;
  if (values > TAIL_ARENA / 4) return new Float64Array(values);
  if (arenaUsed + values > arena.length) {
    arena = new Float64Array(TAIL_ARENA);
    arenaUsed = 0;
  }
  const tail = arena.subarray(arenaUsed, arenaUsed + values);
  arenaUsed += values;
  return tail;
}

/** Values of the array tails are sliced from (8 KB). */
const TAIL_ARENA = 1024;
let arena = new Float64Array(0);
let arenaUsed = 0;

/** Bars `[from, to)` of `c` as a new tail. */
export function packTail(c: Columns, from = 0, to = c.time.length): Tail {
  const n = to - from;
  const out = newTail(n);
  COLUMNS.forEach((name, k) => out.set(c[name].subarray(from, to), k * n));
  return out;
}

/** A tail's bytes as stored ({@link encodeColumns}' layout): a view, no copy. */
export function tailBytes(tail: Tail): Buffer {
  return Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength);
}

/** A stored tail's bytes as a tail (a view when aligned). */
export function readTail(bytes: Uint8Array): Tail {
  return float64s(bytes);
}

/** One block row as written: its bars packed column after column ({@link encodeColumns}). */
export interface BlockRow extends SeriesKey {
  block: number;
  n: number;
  bytes: Buffer;
}

/** One block as read: its number, bar count and packed bars (empty when only the counts were read). */
export interface ReadBlock {
  block: number;
  n: number;
  bytes: Uint8Array;
}

/** Packs bars `[from, to)` (all in one block) into a block row; its bytes from `alloc` (the engine's write gives its own). */
export function packBlock(key: SeriesKey, block: number, bars: Columns, from: number, to: number, alloc?: (size: number) => Buffer): BlockRow {
  return {
    market: key.market,
    timeframe: key.timeframe,
    symbol: key.symbol,
    block,
    n: to - from,
    bytes: encodeColumns(from === 0 && to === bars.time.length ? bars : sliceColumns(bars, from, to), alloc),
  };
}

/** Float64 values of packed bytes: a view when aligned, else a copy. */
export function float64s(bytes: Uint8Array, count = bytes.byteLength / 8): Float64Array {
  if (bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, count);
  const out = new Float64Array(count);
  new Uint8Array(out.buffer).set(bytes.subarray(0, count * 8));
  return out;
}

/** A block read whole, as columns (views when its bytes are aligned). */
export function blockColumns(block: ReadBlock): Columns {
  return decodeColumns(block.bytes);
}

/** Where column `c` (0 time, 1 open … 5 volume) of `n` packed bars starts, in values. */
export function columnAt(c: number, n: number): number {
  return c * n;
}

/** Bars packed column after column: n times, then n opens, highs, lows, closes and volumes (blocks and tails alike). */
export function encodeColumns(bars: Columns, alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const n = bars.time.length;
  const out = alloc(n * 48);
  const view = new Float64Array(out.buffer, out.byteOffset, n * 6);
  COLUMNS.forEach((name, c) => view.set(bars[name], c * n));
  return out;
}

/** Packed bars as columns (views when aligned). */
export function decodeColumns(bytes: Uint8Array): Columns {
  // Packed bars are laid out as a tail is: the same split into columns.
  return tailColumns(float64s(bytes, (bytes.byteLength / 48) * 6));
}

/** Columns `[from, to)` as views. */
export function sliceColumns(c: Columns, from: number, to: number): Columns {
  return {
    time: c.time.subarray(from, to),
    open: c.open.subarray(from, to),
    high: c.high.subarray(from, to),
    low: c.low.subarray(from, to),
    close: c.close.subarray(from, to),
    volume: c.volume.subarray(from, to),
  };
}

/**
 * How many bars a series' tail may hold before it is sealed into blocks: between 8 and 23,
 * fixed per series by a hash of its key, so appends to many series in step seal a sixteenth
 * of them at each bar rather than all of them every sixteenth bar.
 */
export function tailLimit(key: SeriesKey): number {
  // FNV-1a over market, NUL, timeframe, NUL, symbol: the parts in turn, not a joined string
  // (every series of an append asks this).
  let h = fnv(2166136261, key.market);
  h = Math.imul(h, 16777619);
  h = fnv(h, key.timeframe);
  h = Math.imul(h, 16777619);
  h = fnv(h, key.symbol);
  return 8 + ((h >>> 0) % 16);
}

function fnv(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h;
}

/** The series of a request in RAW_SERIES order (column names come only from this list, never from a request string). */
export function orderedSeries(requested: readonly RawSeries[]): RawSeries[] {
  return RAW_SERIES.filter((name) => requested.includes(name));
}

/** The bars a write keeps, oldest first: of bars sharing a time, the last given (as successive upserts would). */
export function uniqueBars(bars: Bars): Columns {
  const n = bars.time.length;
  let increasing = true;
  for (let i = 1; i < n && increasing; i++) if (!(bars.time[i]! > bars.time[i - 1]!)) increasing = false;
  if (increasing) {
    if (COLUMNS.every((name) => bars[name] instanceof Float64Array)) return bars as Columns;
    // One buffer for the six columns, filled by plain loops (`Float64Array.from` takes the
    // iterator's slow path): an append to 10,000 symbols converts 60,000 one-value arrays.
    const out = packedColumns(n);
    for (const name of COLUMNS) {
      const from = bars[name];
      const to = out[name];
      for (let i = 0; i < n; i++) to[i] = from[i]!;
    }
    return out;
  }
  const last = new Map<number, number>();
  for (let i = 0; i < n; i++) last.set(bars.time[i]!, i);
  const keep = [...last.values()].sort((a, b) => bars.time[a]! - bars.time[b]!);
  const pick = (c: ArrayLike<number>): Float64Array => Float64Array.from(keep, (i) => c[i]!);
  return { time: pick(bars.time), open: pick(bars.open), high: pick(bars.high), low: pick(bars.low), close: pick(bars.close), volume: pick(bars.volume) };
}
