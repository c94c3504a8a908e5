/**
 * The one write path of the stores (import, seed, `data sync`, `POST /xql/bars`, deletes): merges
 * bars into a series' blocks and tail, seals tails, derives coarser timeframes, and says what
 * changed, the same way on SQLite and PostgreSQL (see `io.ts`). Per series it picks the cheapest
 * path that is exact:
 *
 * - a new series (or one replaced whole) is packed straight into blocks, nothing read;
 * - a few bars at or after the tail's first bar (an append, a bar still in progress) merge into
 *   the tail, which is sealed into its block when it grows past its limit (reading that block
 *   once); the derived timeframes of an append fold the new bars into their last bar;
 * - anything else (an overlap in the past, a large append) reads the blocks the write spans in
 *   windows and rewrites them; derived periods the write touched are aggregated again from the
 *   finer bars over those periods (or wholly when the finest timeframe changed).
 *
 * Symbols are worked on in groups whose reads go to the backend together (one round trip per
 * step of a group on PostgreSQL), and writes are sent in batches.
 */
import type { Timeframe } from "../../types.js";
import { TIMEFRAMES } from "../../types.js";
import { BarAggregator, BarColumns, packedColumns } from "../../sessions/aggregate.js";
import { periodRange } from "../../sessions/periods.js";
import {
  BLOCK_BARS,
  type BlockRow,
  type CatalogRow,
  type Columns,
  NO_COLUMNS,
  appendColumns,
  type ReadBlock,
  type SeriesKey,
  blockColumns,
  blockOf,
  packBlock,
  sliceColumns,
  tailLimit,
} from "../blocks.js";
import { type DeriveJob, planDerivation } from "../derive.js";
import { type BlockRange, type Engine, type StoreChanges, emptyChanges } from "./io.js";
import type { CatalogWrite } from "./catalog-cache.js";
import type { Incoming, SymbolWrite, TouchedSeries } from "../store.js";

export type { Incoming, SymbolWrite, TouchedSeries };

/** What a write did. */
export interface WriteOutcome {
  /** Bars written to imported timeframes. */
  written: number;
  /** Of those, bars that replaced a stored bar of the same time. */
  replaced: number;
  /** Distinct (market, symbol) pairs written. */
  symbols: number;
  /** Every series changed, derived ones included. */
  touched: TouchedSeries[];
}

/** Blocks read per round of a long rewrite: bounds the memory of a write whatever the series' size. */
const WINDOW_BLOCKS = 16;
/** Symbols worked on together (their reads batched). */
const GROUP_SYMBOLS = 256;
/** Bars merged into a tail in memory at most; more take the block path. */
const TAIL_WRITE_MAX = 4096;
/** What a catalog row waiting to be sent costs, beside its tail's values (its key and six small arrays). */
const CATALOG_ROW_BYTES = 1024;
/** Packed bytes waiting before they are sent to the backend. */
const FLUSH_BYTES = 8 << 20;

/** A step of a task: it yields block ranges to read (none: only let the pending writes go first) and gets their blocks. */
type Step<T> = Generator<readonly BlockRange[], T, ReadBlock[][]>;
type Task = Step<void>;

const keyOf = (k: SeriesKey): string => `${k.market}\u0000${k.timeframe}\u0000${k.symbol}`;

/** State shared by the tasks of one write. */
class WriteContext {
  private changes: StoreChanges = emptyChanges();
  /** Block rows to insert, per series: a later delete of the same series drops them here. */
  private readonly puts = new Map<string, BlockRow[]>();
  private readonly catalog = new Map<string, CatalogRow>();
  private pendingBytes = 0;
  readonly touched = new Map<string, TouchedSeries>();
  written = 0;
  replaced = 0;

  /** `held`: the store handle's catalog rows, told of every change sent. */
  constructor(private readonly held?: CatalogWrite) {}

  putBlock(row: BlockRow): void {
    const k = keyOf(row);
    const list = this.puts.get(k);
    if (list) list.push(row);
    else this.puts.set(k, [row]);
    this.pendingBytes += row.n * 48 + 64;
  }

  /** Block rows of the series in [from, to] go, those this write put there before included. */
  deleteBlocks(key: SeriesKey, from: number, to: number): void {
    const k = keyOf(key);
    const list = this.puts.get(k);
    if (list) {
      const kept = list.filter((row) => row.block < from || row.block > to);
      if (kept.length > 0) this.puts.set(k, kept);
      else this.puts.delete(k);
    }
    this.changes.deleteBlocks.push({ market: key.market, timeframe: key.timeframe, symbol: key.symbol, from, to });
  }

  /** The catalog row goes out with the next flush (the latest version of it). */
  putCatalog(row: CatalogRow): void {
    const k = keyOf(row);
    // A write of many new series holds little block data but a catalog row (with its tail) per
    // series: they count toward the flush too, so their memory stays bounded.
    if (!this.catalog.has(k)) this.pendingBytes += CATALOG_ROW_BYTES + row.tail.time.length * 48;
    this.catalog.set(k, row);
  }

  deleteCatalog(key: SeriesKey): void {
    this.catalog.delete(keyOf(key));
    this.changes.deleteCatalog.push({ market: key.market, timeframe: key.timeframe, symbol: key.symbol });
  }

  touch(key: SeriesKey, from: number): void {
    const k = keyOf(key);
    const held = this.touched.get(k);
    if (!held) this.touched.set(k, { market: key.market, timeframe: key.timeframe, symbol: key.symbol, from });
    else if (from < held.from) held.from = from;
  }

  get full(): boolean {
    return this.pendingBytes >= FLUSH_BYTES;
  }

  /** Sends the pending writes (catalog rows last, so a row never names a block not yet written). */
  *flush(): Engine<void> {
    if (this.catalog.size === 0 && this.changes.deleteBlocks.length === 0 && this.puts.size === 0 && this.changes.deleteCatalog.length === 0) return;
    const changes = this.changes;
    for (const list of this.puts.values()) for (const row of list) changes.putBlocks.push(row);
    this.puts.clear();
    changes.putCatalog = [...this.catalog.values()];
    this.catalog.clear();
    this.changes = emptyChanges();
    this.pendingBytes = 0;
    yield { kind: "write", changes };
    this.held?.wrote(changes);
  }
}

/** A builder's buffer before its first bar (never written to: `push` replaces it). */
const EMPTY_BUFFER = new BarColumns(0);

/** Packs bars pushed in time order into block rows; holds back the last bar as a tail when asked. */
class BlockBuilder {
  private block = Number.NaN;
  /** Made on the first bar pushed: most appends settle a tail without ever sealing a block. */
  private buffer: BarColumns = EMPTY_BUFFER;
  /** Bars pushed. */
  count = 0;
  first = Number.NaN;
  last = Number.NaN;
  /** The newest block number written, or null. */
  newestBlock: number | null = null;

  constructor(
    private readonly ctx: WriteContext,
    private readonly key: SeriesKey,
  ) {}

  push(time: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (this.buffer === EMPTY_BUFFER) this.buffer = new BarColumns(BLOCK_BARS);
    const block = blockOf(time, this.key.timeframe);
    if (block !== this.block) {
      this.seal();
      this.block = block;
    }
    this.buffer.push(time, open, high, low, close, volume);
    if (this.count === 0) this.first = time;
    this.last = time;
    this.count++;
  }

  /** Pushes bar `i` of `c`. */
  pushAt(c: Columns, i: number): void {
    this.push(c.time[i]!, c.open[i]!, c.high[i]!, c.low[i]!, c.close[i]!, c.volume[i]!);
  }

  pushAll(c: Columns, from = 0, to = c.time.length): void {
    for (let i = from; i < to; i++) this.pushAt(c, i);
  }

  private seal(): void {
    const n = this.buffer.length;
    if (n === 0) return;
    this.ctx.putBlock(packBlock(this.key, this.block, this.buffer.bars(), 0, n));
    this.newestBlock = this.newestBlock === null ? this.block : Math.max(this.newestBlock, this.block);
    this.buffer.length = 0;
  }

  /** Writes what is buffered; with `holdLast`, the last bar pushed is returned as a one-bar tail instead. */
  finish(holdLast: boolean): Columns | undefined {
    let tail: Columns | undefined;
    if (holdLast && this.buffer.length > 0) {
      const n = --this.buffer.length;
      const b = this.buffer;
      tail = {
        time: Float64Array.of(b.time[n]!),
        open: Float64Array.of(b.open[n]!),
        high: Float64Array.of(b.high[n]!),
        low: Float64Array.of(b.low[n]!),
        close: Float64Array.of(b.close[n]!),
        volume: Float64Array.of(b.volume[n]!),
      };
    }
    this.seal();
    return tail;
  }
}

/** Reads bars one at a time from chunks of columns. */
class Cursor {
  private readonly iterator: Iterator<Columns>;
  private chunk: Columns = NO_COLUMNS;
  private i = 0;
  /** Time of the current bar; Infinity when done. */
  time = Number.NEGATIVE_INFINITY;

  constructor(chunks: Iterable<Columns>) {
    this.iterator = chunks[Symbol.iterator]();
    this.advance(false);
  }

  /** Moves to the next bar (`step`: past the current one). */
  advance(step = true): void {
    if (step) this.i++;
    while (this.i >= this.chunk.time.length) {
      const next = this.iterator.next();
      if (next.done) {
        this.time = Number.POSITIVE_INFINITY;
        return;
      }
      this.chunk = next.value;
      this.i = 0;
    }
    this.time = this.chunk.time[this.i]!;
  }

  /** Pushes the current bar to `builder` and moves on. */
  emit(builder: BlockBuilder): void {
    const c = this.chunk;
    const i = this.i;
    builder.pushAt(c, i);
    this.advance();
  }
}

/**
 * Merges `incoming` into sorted `existing` bars (incoming wins a tie); returns the merged bars,
 * packed in one array (a tail encodes without a copy), and how many ties there were.
 */
function mergeColumns(existing: Columns, incoming: Columns): { merged: Columns; ties: number } {
  const n = existing.time.length;
  const m = incoming.time.length;
  // An append, the usual write: every incoming bar follows every stored one.
  if (n === 0 || m === 0 || incoming.time[0]! > existing.time[n - 1]!) return { merged: appendColumns(existing, incoming), ties: 0 };
  let ties = 0;
  for (let i = 0, j = 0; i < n && j < m; ) {
    const te = existing.time[i]!;
    const ti = incoming.time[j]!;
    if (ti <= te) j++;
    if (te <= ti) i++;
    if (te === ti) ties++;
  }
  const out = packedColumns(n + m - ties);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.time.length; k++) {
    const te = i < n ? existing.time[i]! : Number.POSITIVE_INFINITY;
    const ti = j < m ? incoming.time[j]! : Number.POSITIVE_INFINITY;
    const from = ti <= te ? incoming : existing;
    const at = ti <= te ? j : i;
    if (ti <= te) j++;
    if (te <= ti) i++;
    out.time[k] = from.time[at]!;
    out.open[k] = from.open[at]!;
    out.high[k] = from.high[at]!;
    out.low[k] = from.low[at]!;
    out.close[k] = from.close[at]!;
    out.volume[k] = from.volume[at]!;
  }
  return { merged: out, ties };
}

/** All bars of `chunks` in one set of columns (small inputs only; a single chunk as it is). */
function collect(chunks: Iterable<Columns>, capacity: number): Columns {
  const list = [...chunks];
  if (list.length === 1) return list[0]!;
  const out = new BarColumns(Math.max(1, capacity));
  for (const c of list) out.pushRange(c);
  return out.bars();
}

function lastBar(c: Columns): Columns {
  return sliceColumns(c, c.time.length - 1, c.time.length);
}

/** The result of writing one series: its new catalog row (undefined when it holds no bar) and the ties with stored bars. */
interface SeriesResult {
  row: CatalogRow | undefined;
  ties: number;
}

/** The catalog row of a series written by `builder` from nothing. */
function newRow(key: SeriesKey, derived: boolean, builder: BlockBuilder, tail: Columns | undefined): CatalogRow | undefined {
  if (!tail) return undefined;
  return { ...key, derived, bars: builder.count, firstTime: builder.first, lastTime: builder.last, sealedBlock: builder.newestBlock, tail };
}

/** A timeframe derived wholly while its finer bars stream by: its aggregator and blocks. */
interface WholeDerivation {
  key: SeriesKey;
  aggregator: BarAggregator;
  builder: BlockBuilder;
}

/**
 * A series that did not exist (or was dropped): its bars packed into blocks, the last one kept
 * as the tail; the timeframes in `derive` are aggregated from the same bars in the same pass
 * (each replacing what it held), so a large import reads its bars once.
 */
function* writeNew(
  ctx: WriteContext,
  key: SeriesKey,
  derived: boolean,
  chunks: Iterable<Columns>,
  derive: readonly Timeframe[] = [],
  rows?: Map<Timeframe, CatalogRow>,
): Step<CatalogRow | undefined> {
  const builder = new BlockBuilder(ctx, key);
  const targets: WholeDerivation[] = derive.map((timeframe) => {
    const coarseKey: SeriesKey = { market: key.market, timeframe, symbol: key.symbol };
    const held = rows?.get(timeframe);
    if (held) dropSeries(ctx, held);
    return { key: coarseKey, aggregator: new BarAggregator(timeframe, key.market), builder: new BlockBuilder(ctx, coarseKey) };
  });
  for (const c of chunks) {
    const { time, open, high, low, close, volume } = c;
    for (let i = 0; i < time.length; i++) {
      const t = time[i]!;
      const o = open[i]!;
      const h = high[i]!;
      const l = low[i]!;
      const x = close[i]!;
      const v = volume[i]!;
      builder.push(t, o, h, l, x, v);
      for (let k = 0; k < targets.length; k++) {
        const target = targets[k]!;
        const closed = target.aggregator.add(t, o, h, l, x, v);
        if (closed) target.builder.push(closed.time, closed.open, closed.high, closed.low, closed.close, closed.volume);
      }
    }
    if (ctx.full) yield [];
  }
  for (const target of targets) {
    const last = target.aggregator.finish();
    if (last) target.builder.push(last.time, last.open, last.high, last.low, last.close, last.volume);
    const coarse = newRow(target.key, true, target.builder, target.builder.finish(true));
    if (coarse) {
      ctx.putCatalog(coarse);
      ctx.touch(target.key, coarse.firstTime);
      rows?.set(target.key.timeframe, coarse);
    } else rows?.delete(target.key.timeframe);
  }
  const row = newRow(key, derived, builder, builder.finish(true));
  if (row) {
    ctx.putCatalog(row);
    ctx.touch(key, row.firstTime);
  }
  return row;
}

/** Drops a series whole: its blocks and catalog row. */
function dropSeries(ctx: WriteContext, row: CatalogRow): void {
  ctx.deleteBlocks(row, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  ctx.deleteCatalog(row);
  ctx.touch(row, Number.NEGATIVE_INFINITY);
}

/**
 * Bars at or after the tail's first bar, few of them: merged into the tail in memory; when the
 * tail outgrows its limit, all but its last bar are sealed into blocks (the newest block row is
 * read once when the sealed bars continue it).
 */
function* writeTail(ctx: WriteContext, row: CatalogRow, incoming: Columns): Step<SeriesResult> {
  const { merged, ties } = mergeColumns(row.tail, incoming);
  ctx.touch(row, incoming.time[0]!);
  const next = yield* settleTail(ctx, row, merged, row.bars + merged.time.length - row.tail.time.length);
  return { row: next, ties };
}

/**
 * A series whose tail became `tail` (every bar from the old tail's first on; `bars` in all):
 * kept as the tail while it fits its limit, else all but its last bar sealed into blocks (the
 * newest block row read once when the sealed bars continue it).
 */
function* settleTail(ctx: WriteContext, row: CatalogRow, tail: Columns, bars: number): Step<CatalogRow> {
  const n = tail.time.length;
  const lastTime = tail.time[n - 1]!;
  if (n <= tailLimit(row)) {
    const next: CatalogRow = { ...row, bars, lastTime, tail };
    ctx.putCatalog(next);
    return next;
  }
  const builder = new BlockBuilder(ctx, row);
  const first = blockOf(tail.time[0]!, row.timeframe);
  if (row.sealedBlock !== null && row.sealedBlock >= first) {
    const [blocks] = yield [{ ...keyPart(row), from: first, to: row.sealedBlock }];
    ctx.deleteBlocks(row, first, row.sealedBlock);
    for (const block of blocks!) builder.pushAll(blockColumns(block));
  }
  builder.pushAll(tail, 0, n - 1);
  builder.finish(false);
  const newest = builder.newestBlock === null ? row.sealedBlock : Math.max(builder.newestBlock, row.sealedBlock ?? builder.newestBlock);
  const next: CatalogRow = { ...row, bars, lastTime, sealedBlock: newest, tail: lastBar(tail) };
  ctx.putCatalog(next);
  return next;
}

const keyPart = (k: SeriesKey): SeriesKey => ({ market: k.market, timeframe: k.timeframe, symbol: k.symbol });

/**
 * Incoming bars merged into a stored series anywhere in its history (incoming wins a tie): the
 * blocks the incoming span covers are read in windows and rewritten; the tail too when the span
 * reaches it (then all but the series' last bar go to blocks).
 */
function* writeMerge(ctx: WriteContext, row: CatalogRow, incoming: Incoming): Step<SeriesResult> {
  const tailFirst = row.tail.time[0]!;
  const reachesTail = incoming.hi >= tailFirst;
  const lo = blockOf(incoming.lo, row.timeframe);
  const upper = row.sealedBlock === null ? lo - 1 : reachesTail ? row.sealedBlock : Math.min(blockOf(incoming.hi, row.timeframe), row.sealedBlock);
  const builder = new BlockBuilder(ctx, row);
  const cursor = new Cursor(incoming.chunks());
  let existing = 0;
  let ties = 0;
  const mergeExisting = (c: Columns): void => {
    for (let i = 0; i < c.time.length; i++) {
      const t = c.time[i]!;
      while (cursor.time < t) cursor.emit(builder);
      existing++;
      if (cursor.time === t) {
        cursor.emit(builder);
        ties++;
      } else builder.pushAt(c, i);
    }
  };
  for (let from = lo; from <= upper; from += WINDOW_BLOCKS) {
    const to = Math.min(upper, from + WINDOW_BLOCKS - 1);
    const [blocks] = yield [{ ...keyPart(row), from, to }];
    // Deleted once read (a read goes after the writes pending before it); rewritten as merged.
    ctx.deleteBlocks(row, from, to);
    for (const block of blocks!) mergeExisting(blockColumns(block));
    if (ctx.full) yield [];
  }
  if (reachesTail) mergeExisting(row.tail);
  while (cursor.time !== Number.POSITIVE_INFINITY) {
    cursor.emit(builder);
    if (ctx.full) yield [];
  }
  const tail = builder.finish(reachesTail) ?? row.tail;
  const newest = builder.newestBlock === null ? row.sealedBlock : Math.max(builder.newestBlock, row.sealedBlock ?? builder.newestBlock);
  const next: CatalogRow = {
    ...row,
    bars: row.bars - existing + builder.count,
    firstTime: Math.min(row.firstTime, incoming.lo),
    lastTime: Math.max(row.lastTime, incoming.hi),
    sealedBlock: newest,
    tail,
  };
  ctx.putCatalog(next);
  ctx.touch(row, incoming.lo);
  return { row: next, ties };
}

/**
 * Replaces every bar of a series opening in [lo, hi] by bars pushed in time order (a derived
 * timeframe's touched periods, or a delete): only the blocks holding lo and hi are read, for the
 * bars around the range they keep; the blocks between are dropped after counting their bars.
 */
class RangeReplacer {
  private builder: BlockBuilder;
  /** The range lies in the tail: new bars are gathered here and the tail settled, no block read. */
  private inTail: BarColumns | undefined;
  /** Stored bars after the range, written once the range is: gathered in one growing buffer (an append stays linear). */
  private keptAfter: BarColumns | undefined;
  /** Stored bars in the blocks and tail rewritten (whether kept around the range or dropped in it). */
  private rewritten = 0;
  private reachesTail = false;

  constructor(
    private readonly ctx: WriteContext,
    private readonly row: CatalogRow,
    private readonly lo: number,
    private readonly hi: number,
  ) {
    this.builder = new BlockBuilder(ctx, row);
  }

  /** Reads the edges of the range and writes the bars before it; call before pushing. */
  *begin(): Step<void> {
    const { row, lo, hi } = this;
    const tf = row.timeframe;
    this.reachesTail = hi >= row.tail.time[0]!;
    if (lo >= row.tail.time[0]!) {
      this.inTail = new BarColumns(8);
      return;
    }
    const first = blockOf(lo, tf);
    const upper = row.sealedBlock === null ? first - 1 : this.reachesTail ? row.sealedBlock : Math.min(blockOf(hi, tf), row.sealedBlock);
    if (upper >= first) {
      const key = keyPart(row);
      const [head, middle, last] = yield [
        { ...key, from: first, to: first },
        { ...key, from: first + 1, to: upper - 1, counts: true },
        { ...key, from: upper, to: upper },
      ];
      this.ctx.deleteBlocks(row, first, upper);
      const edges = [...head!, ...(upper > first ? last! : [])];
      for (const block of middle!) this.rewritten += block.n;
      for (const block of edges) this.keep(blockColumns(block));
    }
    if (this.reachesTail) this.keep(row.tail);
  }

  /** Rewrites stored bars (sorted) around the range: those before it now, those after it at the end. */
  private keep(c: Columns): void {
    const n = c.time.length;
    this.rewritten += n;
    let i = 0;
    while (i < n && c.time[i]! < this.lo) i++;
    this.builder.pushAll(c, 0, i);
    while (i < n && c.time[i]! <= this.hi) i++;
    if (i < n) (this.keptAfter ??= new BarColumns(n - i)).pushRange(c, i);
  }

  push(time: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (this.inTail) this.inTail.push(time, open, high, low, close, volume);
    else this.builder.push(time, open, high, low, close, volume);
  }

  /** Writes the rest; resolves to the new catalog row (undefined when the series is left empty). */
  *end(): Step<CatalogRow | undefined> {
    const { ctx, row, lo, hi, builder } = this;
    if (this.inTail) {
      // Tail bars before and after the range around the new ones.
      const t = row.tail;
      const tail = new BarColumns(t.time.length + this.inTail.length);
      let i = 0;
      while (i < t.time.length && t.time[i]! < lo) i++;
      tail.pushRange(t, 0, i);
      tail.pushRange(this.inTail.bars());
      while (i < t.time.length && t.time[i]! <= hi) i++;
      tail.pushRange(t, i);
      ctx.touch(row, lo);
      const bars = row.bars - t.time.length + tail.length;
      if (tail.length === 0) {
        // The whole tail went: the newest bar left, in a block, becomes the tail.
        if (bars === 0) {
          dropSeries(ctx, row);
          return undefined;
        }
        return yield* this.tailFromBlocks(bars, row.firstTime);
      }
      return yield* settleTail(ctx, row, tail.bars(), bars);
    }
    if (this.keptAfter) builder.pushAll(this.keptAfter.bars());
    const bars = row.bars - this.rewritten + builder.count;
    const tail = builder.finish(this.reachesTail) ?? (this.reachesTail ? undefined : row.tail);
    ctx.touch(row, lo);
    if (bars === 0) {
      dropSeries(ctx, row);
      return undefined;
    }
    const sealedBlock = builder.newestBlock === null ? row.sealedBlock : Math.max(builder.newestBlock, row.sealedBlock ?? builder.newestBlock);
    const lastTime = this.reachesTail ? builder.last : row.lastTime;
    if (tail === undefined) {
      // Everything from the range on is gone: the newest bar left, in an older block, becomes the tail.
      const firstTime = lo <= row.firstTime ? builder.first : row.firstTime;
      return yield* this.tailFromBlocks(bars, firstTime);
    }
    let firstTime = row.firstTime;
    if (lo <= row.firstTime) {
      if (builder.count > 0) firstTime = builder.first;
      else if (this.reachesTail) firstTime = tail.time[0]!;
      else {
        const [found] = yield [{ ...keyPart(row), from: blockOf(this.hi, row.timeframe) + 1, to: Number.MAX_SAFE_INTEGER, oldest: true }];
        firstTime = found!.length > 0 ? blockColumns(found![0]!).time[0]! : tail.time[0]!;
      }
    }
    const next: CatalogRow = { ...row, bars, firstTime, lastTime, sealedBlock, tail };
    ctx.putCatalog(next);
    return next;
  }

  /** Every bar from the range on is gone: the newest bar left, the last of the newest block before the range, becomes the tail. */
  private *tailFromBlocks(bars: number, firstTime: number): Step<CatalogRow> {
    const { ctx, row, lo } = this;
    const [found] = yield [{ ...keyPart(row), from: Number.MIN_SAFE_INTEGER, to: blockOf(Math.min(lo, row.tail.time[0]!), row.timeframe), newest: true }];
    const block = found![0]!;
    const c = blockColumns(block);
    const n = c.time.length;
    ctx.deleteBlocks(row, block.block, block.block);
    if (n > 1) ctx.putBlock(packBlock(row, block.block, c, 0, n - 1));
    const next: CatalogRow = {
      ...row,
      bars,
      firstTime,
      lastTime: c.time[n - 1]!,
      sealedBlock: n > 1 ? block.block : block.block - 1,
      tail: sliceColumns(c, n - 1, n),
    };
    ctx.putCatalog(next);
    return next;
  }
}

/** Streams the bars of a series opening in [from, to) (blocks in windows, then its tail), after this write's earlier steps. */
function* streamSeries(row: CatalogRow, from: number, to: number, visit: (c: Columns, i: number) => void): Step<void> {
  if (row.sealedBlock !== null) {
    const last = Math.min(row.sealedBlock, blockOf(to - 1, row.timeframe));
    for (let b = Math.max(blockOf(from, row.timeframe), blockOf(row.firstTime, row.timeframe)); b <= last; b += WINDOW_BLOCKS) {
      const [blocks] = yield [{ ...keyPart(row), from: b, to: Math.min(last, b + WINDOW_BLOCKS - 1) }];
      for (const block of blocks!) {
        const c = blockColumns(block);
        for (let i = 0; i < c.time.length; i++) if (c.time[i]! >= from && c.time[i]! < to) visit(c, i);
      }
    }
  }
  const t = row.tail;
  for (let i = 0; i < t.time.length; i++) if (t.time[i]! >= from && t.time[i]! < to) visit(t, i);
}

/** Everything one write does to one symbol: its timeframes written, then the derived ones. */
function* symbolTask(ctx: WriteContext, write: SymbolWrite, rows: Map<Timeframe, CatalogRow>): Task {
  const { market, symbol } = write;
  const before = new Map<Timeframe, { derived: boolean }>();
  for (const [tf, row] of rows) before.set(tf, { derived: row.derived });
  const wholly = new Map<Timeframe, { wholly: boolean }>();
  /** Per timeframe written: the bars are all of it (new or replaced), or they follow everything it held. */
  const shape = new Map<Timeframe, "whole" | "append" | "merge">();
  const incomingOf = new Map<Timeframe, Incoming>();
  let emptied = false;
  // Derivation planned up front: when the finest timeframe is written whole and every derived one
  // is rebuilt wholly from it, they are all built in the one pass that writes it.
  const planned = new Map<Timeframe, { wholly: boolean }>();
  for (const incoming of write.incoming) {
    if (incoming.count > 0) planned.set(incoming.timeframe, { wholly: incoming.replace || rows.get(incoming.timeframe)?.derived === true });
  }
  const jobs = planDerivation(before, planned);
  const fine = jobs[0]?.fine;
  const fineRow = fine === undefined ? undefined : rows.get(fine);
  const onePass = fine !== undefined && jobs.every((job) => job.full) && (!fineRow || planned.get(fine)?.wholly === true);
  const done = new Set<Timeframe>();
  for (const incoming of [...write.incoming].sort((a, b) => TIMEFRAMES.indexOf(a.timeframe) - TIMEFRAMES.indexOf(b.timeframe))) {
    const tf = incoming.timeframe;
    const key: SeriesKey = { market, timeframe: tf, symbol };
    let row = rows.get(tf);
    if (incoming.count === 0) {
      // Nothing to write; a replace by nothing drops the series, and what it fed is derived again.
      if (incoming.replace && row) {
        dropSeries(ctx, row);
        rows.delete(tf);
        emptied = true;
      }
      continue;
    }
    const clear = incoming.replace || row?.derived === true;
    if (row && clear) {
      dropSeries(ctx, row);
      row = undefined;
    }
    wholly.set(tf, { wholly: clear });
    incomingOf.set(tf, incoming);
    ctx.written += incoming.count;
    if (!row) {
      shape.set(tf, "whole");
      const derive = onePass && tf === fine ? jobs.map((job) => job.coarse) : [];
      for (const coarse of derive) done.add(coarse);
      const created = yield* writeNew(ctx, key, false, incoming.chunks(), derive, rows);
      if (created) rows.set(tf, created);
      continue;
    }
    shape.set(tf, incoming.lo > row.lastTime ? "append" : "merge");
    const result =
      incoming.count <= TAIL_WRITE_MAX && incoming.lo >= row.tail.time[0]!
        ? yield* writeTail(ctx, row, collect(incoming.chunks(), incoming.count))
        : yield* writeMerge(ctx, row, incoming);
    ctx.replaced += result.ties;
    if (result.row) rows.set(tf, result.row);
  }
  if (emptied) {
    yield* rederive(ctx, market, symbol, rows);
    return;
  }
  for (const job of planDerivation(before, wholly)) {
    if (done.has(job.coarse)) continue;
    yield* deriveJob(ctx, market, symbol, job, rows, incomingOf.get(job.fine), shape.get(job.fine));
  }
}

/** Rebuilds one derived timeframe of a symbol after its finest timeframe was written. */
function* deriveJob(
  ctx: WriteContext,
  market: string,
  symbol: string,
  job: DeriveJob,
  rows: Map<Timeframe, CatalogRow>,
  incoming: Incoming | undefined,
  shape: "whole" | "append" | "merge" | undefined,
): Task {
  const key: SeriesKey = { market, timeframe: job.coarse, symbol };
  const fineRow = rows.get(job.fine);
  let coarseRow = rows.get(job.coarse);
  if (coarseRow?.derived === false) return;
  if (!fineRow) {
    if (coarseRow) dropSeries(ctx, coarseRow);
    rows.delete(job.coarse);
    return;
  }
  if (job.full || !coarseRow || !incoming) {
    // Wholly: from the incoming bars when they are all the fine bars, else from the store.
    if (coarseRow) dropSeries(ctx, coarseRow);
    const aggregator = new BarAggregator(job.coarse, market);
    const builder = new BlockBuilder(ctx, key);
    const visit = (c: Columns, i: number): void => {
      const closed = aggregator.addAt(c, i);
      if (closed) builder.push(closed.time, closed.open, closed.high, closed.low, closed.close, closed.volume);
    };
    if (shape === "whole" && incoming) {
      for (const c of incoming.chunks()) {
        for (let i = 0; i < c.time.length; i++) visit(c, i);
        if (ctx.full) yield [];
      }
    } else {
      yield* streamSeries(fineRow, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, visit);
    }
    const last = aggregator.finish();
    if (last) builder.push(last.time, last.open, last.high, last.low, last.close, last.volume);
    const row = newRow(key, true, builder, builder.finish(true));
    if (row) {
      ctx.putCatalog(row);
      rows.set(job.coarse, row);
      ctx.touch(key, row.firstTime);
    } else rows.delete(job.coarse);
    return;
  }
  if (shape === "append" && incoming.count <= TAIL_WRITE_MAX) {
    // The new fine bars follow every bar the coarse bars were built from: fold them into the last one.
    const aggregator = new BarAggregator(job.coarse, market);
    const t = coarseRow.tail;
    const n = t.time.length - 1;
    aggregator.resume({ time: t.time[n]!, open: t.open[n]!, high: t.high[n]!, low: t.low[n]!, close: t.close[n]!, volume: t.volume[n]! });
    // Usually one bar comes out (the last one, still open): columns of exactly that, no views.
    const out = new BarColumns(1);
    for (const c of incoming.chunks()) {
      for (let i = 0; i < c.time.length; i++) {
        const closed = aggregator.addAt(c, i);
        if (closed) out.pushBar(closed);
      }
    }
    out.pushBar(aggregator.finish()!);
    const bars = out.bars();
    const result = yield* writeTail(ctx, coarseRow, bars);
    if (result.row) rows.set(job.coarse, result.row);
    return;
  }
  // The periods the fine span touched, aggregated again from every fine bar they gather.
  const first = periodRange(incoming.lo, job.coarse, market);
  const last = periodRange(incoming.hi, job.coarse, market);
  const replacer = new RangeReplacer(ctx, coarseRow, first.start, last.start);
  yield* replacer.begin();
  const aggregator = new BarAggregator(job.coarse, market);
  yield* streamSeries(fineRow, first.from, last.to, (c, i) => {
    const closed = aggregator.addAt(c, i);
    if (closed) replacer.push(closed.time, closed.open, closed.high, closed.low, closed.close, closed.volume);
  });
  const final = aggregator.finish();
  if (final) replacer.push(final.time, final.open, final.high, final.low, final.close, final.volume);
  coarseRow = yield* replacer.end();
  if (coarseRow) rows.set(job.coarse, coarseRow);
  else rows.delete(job.coarse);
}

const PAUSE = { kind: "pause" } as const;

/** Runs tasks side by side (a pause after each series' step): their reads go to the backend together, after the writes pending before them. */
function* runTasks(ctx: WriteContext, tasks: Task[]): Engine<void> {
  let waiting: { task: Task; ranges: readonly BlockRange[] }[] = [];
  for (const task of tasks) {
    const step = task.next();
    if (!step.done) waiting.push({ task, ranges: step.value });
    yield PAUSE;
  }
  while (waiting.length > 0) {
    yield* ctx.flush();
    const reads = waiting.flatMap((w) => w.ranges);
    const results = reads.length > 0 ? ((yield { kind: "blocks", reads }) as ReadBlock[][]) : [];
    const next: typeof waiting = [];
    let at = 0;
    for (const { task, ranges } of waiting) {
      const step = task.next(results.slice(at, at + ranges.length));
      at += ranges.length;
      if (!step.done) next.push({ task, ranges: step.value });
      yield PAUSE;
    }
    waiting = next;
  }
}

/** Rows of the catalog per symbol and timeframe: those `catalog` holds, the others read. */
function* catalogOf(market: string, symbols: readonly string[], catalog?: CatalogWrite): Engine<Map<string, Map<Timeframe, CatalogRow>>> {
  const out = new Map<string, Map<Timeframe, CatalogRow>>();
  const missing: string[] = [];
  for (const symbol of symbols) {
    const held = catalog?.held(market, symbol);
    if (held) out.set(symbol, new Map(held));
    else {
      out.set(symbol, new Map());
      missing.push(symbol);
    }
  }
  if (missing.length === 0) return out;
  const rows = (yield { kind: "catalog", market, symbols: missing }) as CatalogRow[];
  for (const row of rows) out.get(row.symbol)?.set(row.timeframe, row);
  catalog?.read(market, missing, rows);
  return out;
}

/**
 * Writes bars to many series: the store's one write path. `onProgress` hears the bars written so
 * far, group by group; `catalog` serves the catalog rows the store handle holds and hears what
 * the write read and changed.
 */
export function* writeBars(writes: readonly SymbolWrite[], onProgress?: (written: number) => void, catalog?: CatalogWrite): Engine<WriteOutcome> {
  const ctx = new WriteContext(catalog);
  const byMarket = new Map<string, SymbolWrite[]>();
  for (const write of writes) {
    const list = byMarket.get(write.market);
    if (list) list.push(write);
    else byMarket.set(write.market, [write]);
  }
  let symbols = 0;
  for (const [market, list] of byMarket) {
    symbols += list.length;
    for (let g = 0; g < list.length; g += GROUP_SYMBOLS) {
      const group = list.slice(g, g + GROUP_SYMBOLS);
      const rows = yield* catalogOf(market, group.map((w) => w.symbol), catalog);
      yield* runTasks(ctx, group.map((write) => symbolTask(ctx, write, rows.get(write.symbol)!)));
      onProgress?.(ctx.written);
    }
  }
  yield* ctx.flush();
  return { written: ctx.written, replaced: ctx.replaced, symbols, touched: [...ctx.touched.values()] };
}

/** Which bars {@link deleteBars} removes: imported timeframes of one symbol in one market. */
export interface DeleteRequest {
  market: string;
  symbol: string;
  /** Only this timeframe; default every imported one. */
  timeframe?: Timeframe;
  /** Only bars opening at or after this time. */
  from?: number;
}

/**
 * Removes bars of one symbol's imported timeframes (all, or from `from` on); its derived
 * timeframes are then derived again wholly from the finest imported timeframe left, or removed
 * when none is left. Resolves to the bars removed and what changed.
 */
export function* deleteBars(request: DeleteRequest): Engine<{ deleted: number; touched: TouchedSeries[] }> {
  const ctx = new WriteContext();
  const catalog = yield* catalogOf(request.market, [request.symbol]);
  const rows = catalog.get(request.symbol)!;
  let deleted = 0;
  const from = request.from ?? Number.NEGATIVE_INFINITY;
  function* task(): Task {
    for (const [tf, row] of [...rows]) {
      if (row.derived || (request.timeframe !== undefined && request.timeframe !== tf)) continue;
      if (from <= row.firstTime) {
        deleted += row.bars;
        dropSeries(ctx, row);
        rows.delete(tf);
        continue;
      }
      if (from > row.lastTime) continue;
      const before = row.bars;
      const replacer = new RangeReplacer(ctx, row, from, Number.MAX_SAFE_INTEGER);
      yield* replacer.begin();
      const next = yield* replacer.end();
      deleted += before - (next?.bars ?? 0);
      if (next) rows.set(tf, next);
      else rows.delete(tf);
    }
    if (deleted === 0) return;
    yield* rederive(ctx, request.market, request.symbol, rows);
  }
  yield* runTasks(ctx, [task()]);
  yield* ctx.flush();
  return { deleted, touched: [...ctx.touched.values()] };
}

/** Derives every derived timeframe of one symbol again, wholly, from its finest imported timeframe (or drops them). */
function* rederive(ctx: WriteContext, market: string, symbol: string, rows: Map<Timeframe, CatalogRow>): Task {
  const imported = TIMEFRAMES.filter((tf) => rows.get(tf)?.derived === false);
  const fine = imported[0];
  for (const tf of TIMEFRAMES) {
    const row = rows.get(tf);
    if (!row?.derived) continue;
    if (fine === undefined || TIMEFRAMES.indexOf(tf) < TIMEFRAMES.indexOf(fine)) {
      dropSeries(ctx, row);
      rows.delete(tf);
    }
  }
  if (fine === undefined) return;
  for (const coarse of TIMEFRAMES.slice(TIMEFRAMES.indexOf(fine) + 1)) {
    if (rows.get(coarse)?.derived === false) continue;
    yield* deriveJob(ctx, market, symbol, { fine, coarse, full: true }, rows, undefined, undefined);
  }
}

/** Derives every derived timeframe of the given symbols again, wholly (a schema change of the derivation rules). */
export function* rederiveSymbols(market: string, symbols: readonly string[]): Engine<TouchedSeries[]> {
  const ctx = new WriteContext();
  for (let g = 0; g < symbols.length; g += GROUP_SYMBOLS) {
    const group = symbols.slice(g, g + GROUP_SYMBOLS);
    const catalog = yield* catalogOf(market, group);
    yield* runTasks(ctx, group.map((symbol) => rederive(ctx, market, symbol, catalog.get(symbol)!)));
  }
  yield* ctx.flush();
  return [...ctx.touched.values()];
}
