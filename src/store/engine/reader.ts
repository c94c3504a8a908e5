/**
 * Reading the latest bars of every symbol of a market (both backends): from each series' tail
 * (in its catalog row) and then its newest blocks, cut at the base bar's close for a non-base
 * source, into columns that are views over one buffer per column for the whole market (one
 * allocation per column, not one per symbol).
 */
import type { Bars, RawSeries } from "../../types.js";
import { BLOCK_BARS, type Columns, RAW_COLUMN, type ReadBlock, blockColumns as blockColumnsOf, blockOf, unpackInto } from "../blocks.js";
import type { Timeframe } from "../../types.js";

/** What a read needs of one catalog row. */
export interface LatestRow {
  symbol: string;
  firstTime: number;
  lastTime: number;
  sealedBlock: number | null;
  tail: Columns;
  /** Open times at or after this are not wanted (the base close of a non-base source); Infinity for none. */
  cut: number;
}

/** The tail bars opening before `cut`. */
export function tailBefore(row: LatestRow): number {
  const time = row.tail.time;
  let n = time.length;
  while (n > 0 && time[n - 1]! >= row.cut) n--;
  return n;
}

/**
 * The block rows to read for `want` bars of a series after its tail gives what it can: the newest
 * `limit` blocks numbered at most `to` (blocks at least half full suffice; {@link shortOf} says
 * when more must be read), or undefined when the tail is enough or there is no block.
 */
export function blocksWanted(row: LatestRow, timeframe: Timeframe, want: number): { to: number; limit: number } | undefined {
  const fromTail = tailBefore(row);
  const rest = want - fromTail;
  if (rest <= 0 || row.sealedBlock === null) return undefined;
  const to = row.cut === Number.POSITIVE_INFINITY ? row.sealedBlock : Math.min(row.sealedBlock, blockOf(row.cut - 1, timeframe));
  return { to, limit: Math.ceil((2 * rest) / BLOCK_BARS) + 1 };
}

/** Bars of a block opening before the cut. */
function blockBars(block: ReadBlock, cut: number): number {
  if (cut === Number.POSITIVE_INFINITY) return block.n;
  const time = new Float64Array(block.n);
  unpackInto(block.bytes, time, 0, 0, block.n);
  let n = block.n;
  while (n > 0 && time[n - 1]! >= cut) n--;
  return n;
}

/**
 * True when the blocks read (newest first) with their tail hold fewer than `want` bars and older
 * blocks exist: the caller reads that series again with no limit.
 */
export function shortOf(row: LatestRow, timeframe: Timeframe, blocks: readonly ReadBlock[], limit: number, want: number): boolean {
  if (blocks.length < limit) return false;
  let have = tailBefore(row);
  for (const block of blocks) have += blockBars(block, row.cut);
  return have < want && blocks[blocks.length - 1]!.block > blockOf(row.firstTime, timeframe);
}

const nanColumns = new Map<number, Float64Array>();

/** One shared NaN column per length for series a query does not read (never written to). */
export function nanColumn(length: number): Float64Array {
  let column = nanColumns.get(length);
  if (!column) {
    column = new Float64Array(length).fill(Number.NaN);
    if (nanColumns.size < 1024) nanColumns.set(length, column);
  }
  return column;
}

/**
 * The latest `want` bars before each row's cut, oldest first, from its tail and blocks (newest
 * first); series not asked for are NaN columns.
 */
export function assembleLatest(
  rows: readonly LatestRow[],
  blocksOf: readonly (readonly ReadBlock[])[],
  series: readonly RawSeries[],
  want: number,
): { symbol: string; bars: Bars }[] {
  // Per symbol: the tail bars taken, then per block (newest first) the bars before the cut and taken.
  const plans: { tail: number; blocks: { block: ReadBlock; from: number; to: number }[]; total: number }[] = [];
  let grand = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const tailEnd = tailBefore(row);
    const tail = Math.min(tailEnd, want);
    let total = tail;
    const taken: { block: ReadBlock; from: number; to: number }[] = [];
    for (const block of blocksOf[r] ?? []) {
      if (total >= want) break;
      const to = blockBars(block, row.cut);
      if (to === 0) continue;
      const from = Math.max(0, to - (want - total));
      taken.push({ block, from, to });
      total += to - from;
    }
    plans.push({ tail, blocks: taken, total });
    grand += total;
  }
  const time = new Float64Array(grand);
  const filled = series.map(() => new Float64Array(grand));
  const tailColumn = (c: Columns, name: RawSeries): Float64Array => c[name];
  const out: { symbol: string; bars: Bars }[] = [];
  let offset = 0;
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const { tail, blocks, total } = plans[r]!;
    let at = offset + total;
    // The tail is the newest part: it goes last.
    const tailEnd = tailBefore(row);
    at -= tail;
    time.set(row.tail.time.subarray(tailEnd - tail, tailEnd), at);
    for (let s = 0; s < series.length; s++) filled[s]!.set(tailColumn(row.tail, series[s]!).subarray(tailEnd - tail, tailEnd), at);
    for (const { block, from, to } of blocks) {
      at -= to - from;
      unpackInto(block.bytes, time, at, from, to - from);
      for (let s = 0; s < series.length; s++) unpackInto(block.bytes, filled[s]!, at, RAW_COLUMN[series[s]!] * block.n + from, to - from);
    }
    const view = (c: Float64Array): Float64Array => c.subarray(offset, offset + total);
    const column = (name: RawSeries): Float64Array => {
      const i = series.indexOf(name);
      return i >= 0 ? view(filled[i]!) : nanColumn(total);
    };
    out.push({
      symbol: row.symbol,
      bars: { time: view(time), open: column("open"), high: column("high"), low: column("low"), close: column("close"), volume: column("volume") },
    });
    offset += total;
  }
  return out;
}

/** Which blocks hold bars at or after `from` (none when the tail holds them all). */
export function blocksSince(row: { sealedBlock: number | null; tail: Columns }, timeframe: Timeframe, from: number): { from: number; to: number } | undefined {
  if (row.sealedBlock === null || from >= row.tail.time[0]!) return undefined;
  return { from: blockOf(from, timeframe), to: row.sealedBlock };
}

/** Bars at or after `from`, oldest first, from blocks (ascending, every column) and the tail. */
export function assembleSince(tail: Columns, blocks: readonly ReadBlock[], from: number): Bars {
  const parts: Columns[] = [];
  for (const block of blocks) parts.push(blockColumnsOf(block));
  parts.push(tail);
  let n = 0;
  for (const p of parts) for (let i = 0; i < p.time.length; i++) if (p.time[i]! >= from) n++;
  const out = { time: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
  let at = 0;
  for (const p of parts) {
    for (let i = 0; i < p.time.length; i++) {
      if (p.time[i]! < from) continue;
      out.time[at] = p.time[i]!;
      out.open[at] = p.open[i]!;
      out.high[at] = p.high[i]!;
      out.low[at] = p.low[i]!;
      out.close[at] = p.close[i]!;
      out.volume[at] = p.volume[i]!;
      at++;
    }
  }
  return out;
}
