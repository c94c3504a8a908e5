/**
 * Packed bars for cold reads (issue 12). Beside the row table `bars` (the source of truth for
 * writes and derivation), every (market, timeframe, symbol) is kept in `bar_blocks`: one row
 * per time-aligned block of at most {@link BLOCK_BARS} bars, each series a BLOB / bytea of
 * little-endian float64 values (the bytes of a Float64Array). A block covers the fixed time
 * range `[block · BLOCK_BARS · dur, (block + 1) · BLOCK_BARS · dur)` of its timeframe, so a write
 * rebuilds exactly the blocks its span touches, and "the latest N bars" reads a few blocks
 * per symbol — and only the columns the plan names — instead of N rows.
 */
import type { Bars, RawSeries, Timeframe } from "../types.js";
import { RAW_SERIES, TIMEFRAME_MS } from "../types.js";

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

/** The bytes of a float64 column (little-endian, as typed arrays are on every platform Node runs on). */
export function packColumn(values: ArrayLike<number>, from: number, to: number): Buffer {
  const out = new Float64Array(to - from);
  for (let i = from; i < to; i++) out[i - from] = values[i]!;
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** One packed block ready to insert. */
export interface PackedBlock {
  block: number;
  n: number;
  columns: Record<"time" | RawSeries, Buffer>;
}

/** Splits bars (oldest first) into packed blocks of `tf`. */
export function packBlocks(bars: Bars, tf: Timeframe): PackedBlock[] {
  const out: PackedBlock[] = [];
  const n = bars.time.length;
  let start = 0;
  while (start < n) {
    const block = blockOf(bars.time[start]!, tf);
    let end = start + 1;
    while (end < n && blockOf(bars.time[end]!, tf) === block) end++;
    out.push({
      block,
      n: end - start,
      columns: {
        time: packColumn(bars.time, start, end),
        open: packColumn(bars.open, start, end),
        high: packColumn(bars.high, start, end),
        low: packColumn(bars.low, start, end),
        close: packColumn(bars.close, start, end),
        volume: packColumn(bars.volume, start, end),
      },
    });
    start = end;
  }
  return out;
}

/** Copies a packed column (any alignment) into `target` at `at`, `count` values from value `skip`. */
export function unpackInto(bytes: Uint8Array, target: Float64Array, at: number, skip: number, count: number): void {
  const bytesNeeded = count * 8;
  const offset = bytes.byteOffset + skip * 8;
  if (offset % 8 === 0) {
    target.set(new Float64Array(bytes.buffer, offset, count), at);
  } else {
    new Uint8Array(target.buffer, target.byteOffset + at * 8, bytesNeeded).set(bytes.subarray(skip * 8, skip * 8 + bytesNeeded));
  }
}

/** A block as read: its bar count and the packed columns asked for (`time` always). */
export interface ReadBlock {
  n: number;
  time: Uint8Array;
  columns: (Uint8Array | null)[];
}

/**
 * The latest `count` bars with open time before `cut` from a symbol's blocks given newest
 * first, as oldest-first columns; unread series are NaN columns (shared).
 */
export function assembleLatest(
  blocks: readonly ReadBlock[],
  series: readonly RawSeries[],
  count: number,
  cut: number,
  nan: (length: number) => Float64Array,
): Bars {
  // Per block (newest first): how many of its bars are before the cut and taken.
  const taken: { block: ReadBlock; from: number; to: number }[] = [];
  let total = 0;
  for (const block of blocks) {
    if (total >= count) break;
    let to = block.n;
    if (cut !== Infinity) {
      // Only a cut needs the times here (the newest blocks; older ones end before it).
      const times = new Float64Array(block.n);
      unpackInto(block.time, times, 0, 0, block.n);
      while (to > 0 && times[to - 1]! >= cut) to--;
    }
    if (to === 0) continue;
    const from = Math.max(0, to - (count - total));
    taken.push({ block, from, to });
    total += to - from;
  }
  const time = new Float64Array(total);
  const filled = series.map(() => new Float64Array(total));
  let at = total;
  for (const { block, from, to } of taken) {
    at -= to - from;
    unpackInto(block.time, time, at, from, to - from);
    for (let s = 0; s < series.length; s++) {
      const bytes = block.columns[s];
      if (bytes) unpackInto(bytes, filled[s]!, at, from, to - from);
    }
  }
  const column = (name: RawSeries): Float64Array => {
    const i = series.indexOf(name);
    return i >= 0 ? filled[i]! : nan(total);
  };
  return { time, open: column("open"), high: column("high"), low: column("low"), close: column("close"), volume: column("volume") };
}

/** The series of a request in RAW_SERIES order (column names come only from this list, never from a request string). */
export function orderedSeries(requested: readonly RawSeries[]): RawSeries[] {
  return RAW_SERIES.filter((name) => requested.includes(name));
}

/** The bars a write keeps (the last of each time, as the row upserts do), oldest first. */
export function uniqueBars(bars: Bars): Bars {
  const n = bars.time.length;
  let increasing = true;
  for (let i = 1; i < n && increasing; i++) if (!(bars.time[i]! > bars.time[i - 1]!)) increasing = false;
  if (increasing) return bars;
  const last = new Map<number, number>();
  for (let i = 0; i < n; i++) last.set(bars.time[i]!, i);
  const keep = [...last.values()].sort((a, b) => bars.time[a]! - bars.time[b]!);
  const pick = (c: ArrayLike<number>): Float64Array => Float64Array.from(keep, (i) => c[i]!);
  return { time: pick(bars.time), open: pick(bars.open), high: pick(bars.high), low: pick(bars.low), close: pick(bars.close), volume: pick(bars.volume) };
}
