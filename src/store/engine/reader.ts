/**
 * Reading the latest bars of every symbol of a market (both backends): from each series' tail
 * (in its catalog row) and then its newest blocks, cut at the base bar's close for a non-base
 * source, into columns that are views over one buffer per column for the whole market (one
 * allocation per column, not one per symbol), each block copied to its place as it is read.
 */
import type { Bars, RawSeries } from "../../types.js";
import { BLOCK_BARS, type Columns, RAW_COLUMN, type ReadBlock, blockColumns as blockColumnsOf, blockOf, float64s } from "../blocks.js";
import type { Timeframe } from "../../types.js";
import { XqlDataError } from "../../errors.js";

/** What a read needs of one catalog row. */
export interface LatestRow {
  symbol: string;
  /** The series' bar count (the catalog's): no more than this many are read. */
  bars: number;
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

/** Block rows of one series numbered in [from, to]. */
export interface BlockSpan {
  from: number;
  to: number;
}

/**
 * The block rows to read for `want` bars of a series after its tail gives what it can: numbers
 * in [from, to], `to` the newest block before the cut and `from` far enough back for blocks at
 * least half full ({@link shortOf} says when more must be read), or undefined when the tail is
 * enough or there is no block.
 */
export function blocksWanted(row: LatestRow, timeframe: Timeframe, want: number): BlockSpan | undefined {
  const fromTail = tailBefore(row);
  const rest = want - fromTail;
  if (rest <= 0 || row.sealedBlock === null) return undefined;
  const to = row.cut === Number.POSITIVE_INFINITY ? row.sealedBlock : Math.min(row.sealedBlock, blockOf(row.cut - 1, timeframe));
  return { from: to - Math.ceil((2 * rest) / BLOCK_BARS), to };
}

/** Every block row of a series up to the span's end: for a series {@link shortOf} found short. */
export function wholeSpan(row: LatestRow, timeframe: Timeframe, span: BlockSpan): BlockSpan {
  return { from: blockOf(row.firstTime, timeframe), to: span.to };
}

/** Bars of a block opening before the cut, its packed values in `values` (see {@link float64s}). */
function blockBars(block: ReadBlock, values: Float64Array | undefined, cut: number): number {
  if (cut === Number.POSITIVE_INFINITY) return block.n;
  const time = values ?? float64s(block.bytes, block.n);
  let n = block.n;
  while (n > 0 && time[n - 1]! >= cut) n--;
  return n;
}

/**
 * True when the blocks read for `span` (newest first) with their tail hold fewer than `want`
 * bars and older blocks may exist (sparse blocks: gaps in the market): the caller reads that
 * series again over {@link wholeSpan}.
 */
export function shortOf(row: LatestRow, timeframe: Timeframe, blocks: readonly ReadBlock[], span: BlockSpan, want: number): boolean {
  if (span.from <= blockOf(row.firstTime, timeframe)) return false;
  let have = tailBefore(row);
  for (const block of blocks) have += blockBars(block, undefined, row.cut);
  return have < want;
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

/** Copies `count` values of `source` from `from` into `target` at `at` (no view objects: a block gives a few hundred). */
function copyValues(source: Float64Array, from: number, target: Float64Array, at: number, count: number): void {
  for (let i = 0; i < count; i++) target[at + i] = source[from + i]!;
}

/**
 * The latest `want` bars before each row's cut, oldest first, from its tail and blocks (newest
 * first), put together as the block rows arrive; series not asked for are NaN columns.
 *
 * Each column is one buffer for every symbol, sized from the catalog's counts before a block is
 * read: each symbol has its place at once, so its blocks are copied there as soon as they are
 * read and then dropped (a market's block rows are never all held at once, and every bar is
 * copied once). With `room`, each symbol's place has that many spare values after its bars,
 * which belong to the caller (the hot tier appends there in place).
 */
export class LatestAssembler {
  private readonly time: Float64Array;
  private readonly filled: Float64Array[];
  private readonly places: number[];
  private readonly offsets: number[] = [];
  /** Bars put per row; -1 for a row not put yet. */
  private readonly totals: Int32Array;

  constructor(
    private readonly rows: readonly LatestRow[],
    private readonly series: readonly RawSeries[],
    private readonly want: number,
    room = 0,
  ) {
    let size = 0;
    for (const row of rows) {
      this.offsets.push(size);
      size += Math.min(want, row.bars) + room;
    }
    this.time = new Float64Array(size);
    this.filled = series.map(() => new Float64Array(size));
    this.places = series.map((name) => RAW_COLUMN[name]);
    this.totals = new Int32Array(rows.length).fill(-1);
  }

  /** Puts the bars of row `r` in place from its tail and `blocks`, its blocks read newest first. */
  put(r: number, blocks: readonly ReadBlock[]): void {
    const row = this.rows[r]!;
    const want = this.want;
    const tailEnd = tailBefore(row);
    const tail = Math.min(tailEnd, want);
    let total = tail;
    for (const block of blocks) {
      if (total >= want) break;
      total += Math.min(blockBars(block, undefined, row.cut), want - total);
    }
    const offset = this.offsets[r]!;
    if (total > row.bars) throw new XqlDataError("store-inconsistent", { problem: `Series ${row.symbol}: more bars read than its catalog row counts` });
    this.totals[r] = total;
    const { time, filled, places, series } = this;
    // The tail is the newest part: it goes last, the blocks before it, newest first.
    let at = offset + total - tail;
    copyValues(row.tail.time, tailEnd - tail, time, at, tail);
    for (let s = 0; s < series.length; s++) copyValues(row.tail[series[s]!], tailEnd - tail, filled[s]!, at, tail);
    for (const block of blocks) {
      if (at === offset) break;
      const values = float64s(block.bytes, block.n * 6);
      const to = blockBars(block, values, row.cut);
      const take = Math.min(to, at - offset);
      at -= take;
      copyValues(values, to - take, time, at, take);
      for (let s = 0; s < series.length; s++) copyValues(values, places[s]! * block.n + to - take, filled[s]!, at, take);
    }
  }

  /** Every row's bars, in row order; a row not put has its tail's bars only (it has no block to read). */
  finish(): { symbol: string; bars: Bars }[] {
    const out: { symbol: string; bars: Bars }[] = [];
    for (let r = 0; r < this.rows.length; r++) {
      if (this.totals[r]! < 0) this.put(r, []);
      const offset = this.offsets[r]!;
      const total = this.totals[r]!;
      const view = (c: Float64Array): Float64Array => c.subarray(offset, offset + total);
      const column = (name: RawSeries): Float64Array => {
        const i = this.series.indexOf(name);
        return i >= 0 ? view(this.filled[i]!) : nanColumn(total);
      };
      out.push({
        symbol: this.rows[r]!.symbol,
        bars: { time: view(this.time), open: column("open"), high: column("high"), low: column("low"), close: column("close"), volume: column("volume") },
      });
    }
    return out;
  }
}

/**
 * Block rows of many series, read by one statement in the order of the series asked for, handed
 * on one series at a time: every asked row once, in order, with its blocks newest first (none
 * for a row that had none), as soon as the next row's begin. `oldestFirst`: the statement gives
 * each row's blocks oldest first (an index in block order) and they are turned round.
 */
export class RowBlocks {
  /** Position in `asked` of the first row not handed on yet. */
  private next = 0;
  private row = -1;
  private blocks: ReadBlock[] = [];

  constructor(
    private readonly asked: readonly number[],
    private readonly onRow: (r: number, blocks: ReadBlock[]) => void,
    private readonly oldestFirst = false,
  ) {}

  add(r: number, block: ReadBlock): void {
    if (r !== this.row) {
      if (r < this.row) throw new Error("internal: block rows came out of their series' order (the read's ORDER BY rules it out)");
      this.handOn(r);
      this.row = r;
    } else {
      const last = this.blocks[this.blocks.length - 1]!.block;
      if (this.oldestFirst ? block.block <= last : block.block >= last) throw new Error("internal: block rows came out of their blocks' order (the read's ORDER BY rules it out)");
    }
    this.blocks.push(block);
  }

  /** The statement is done: the row in hand and every asked row left are handed on. */
  end(): void {
    this.handOn(Number.POSITIVE_INFINITY);
  }

  /** Hands on the row in hand, then every asked row before `until` that had no block. */
  private handOn(until: number): void {
    if (this.row >= 0) this.onRow(this.row, this.oldestFirst ? this.blocks.reverse() : this.blocks);
    this.blocks = [];
    while (this.next < this.asked.length && this.asked[this.next]! < until) {
      const r = this.asked[this.next++]!;
      if (r !== this.row) this.onRow(r, []);
    }
  }
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
