/**
 * Writing one series by the cheapest exact path: a new series packed straight into blocks
 * (\`writeNew\`), a few bars merged into the tail (\`writeTail\`, \`settleTail\`), or incoming bars
 * merged anywhere in its history (\`writeMerge\`).
 */
import type { Timeframe } from "../../types.js";
import { BarAggregator } from "../../sessions/aggregate.js";
import { type CatalogRow, type Columns, type SeriesKey, type Tail, blockColumns, blockOf, catalogRowOf, tailColumns, tailFirst, tailLimit } from "../blocks.js";
import type { Incoming } from "../store.js";
import { WINDOW_BLOCKS, type Step, WriteContext, keyPart } from "./context.js";
import { BlockBuilder, Cursor, lastOfTail, mergeTail } from "./packing.js";

/** The result of writing one series: its new catalog row (undefined when it holds no bar) and the ties with stored bars. */
export interface SeriesResult {
  row: CatalogRow | undefined;
  ties: number;
}

/** The catalog row of a series written by `builder` from nothing. */
export function newRow(key: SeriesKey, derived: boolean, builder: BlockBuilder, tail: Tail | undefined): CatalogRow | undefined {
  if (!tail) return undefined;
  return catalogRowOf(key, derived, builder.count, builder.first, builder.last, builder.newestBlock, tail);
}

/** A timeframe derived wholly while its finer bars stream by: its aggregator and blocks. */
export interface WholeDerivation {
  key: SeriesKey;
  aggregator: BarAggregator;
  builder: BlockBuilder;
}

/**
 * A series that did not exist (or was dropped): its bars packed into blocks, the last one kept
 * as the tail; the timeframes in `derive` are aggregated from the same bars in the same pass
 * (each replacing what it held), so a large import reads its bars once.
 */
export function* writeNew(
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
    packChunk(c, builder, targets);
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

/**
 * One chunk of a new series' bars into its blocks and into the timeframes derived in the same
 * pass. A plain function, not the generator's loop: there the six values of each bar were
 * boxed for every call they were passed to, 260 MB of garbage for an import of a million bars.
 */
function packChunk(c: Columns, builder: BlockBuilder, targets: readonly WholeDerivation[]): void {
  for (let i = 0; i < c.time.length; i++) {
    builder.pushAt(c, i);
    for (let k = 0; k < targets.length; k++) {
      const target = targets[k]!;
      const closed = target.aggregator.addAt(c, i);
      if (closed) target.builder.pushBar(closed);
    }
  }
}

/** Drops a series whole: its blocks and catalog row. */
export function dropSeries(ctx: WriteContext, row: CatalogRow): void {
  ctx.deleteBlocks(row, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  ctx.deleteCatalog(row);
  ctx.touch(row, Number.NEGATIVE_INFINITY);
}

/**
 * Bars at or after the tail's first bar, few of them: merged into the tail in memory; when the
 * tail outgrows its limit, all but its last bar are sealed into blocks (the newest block row is
 * read once when the sealed bars continue it).
 */
export function* writeTail(ctx: WriteContext, row: CatalogRow, incoming: Columns): Step<SeriesResult> {
  const { merged, ties } = mergeTail(row.tail, incoming);
  ctx.touch(row, incoming.time[0]!);
  const next = yield* settleTail(ctx, row, merged, row.bars + (merged.length - row.tail.length) / 6);
  return { row: next, ties };
}

/**
 * A series whose tail became `tail` (every bar from the old tail's first on; `bars` in all):
 * kept as the tail while it fits its limit, else all but its last bar sealed into blocks (the
 * newest block row read once when the sealed bars continue it).
 */
export function* settleTail(ctx: WriteContext, row: CatalogRow, tail: Tail, bars: number): Step<CatalogRow> {
  const n = tail.length / 6;
  const lastTime = tail[n - 1]!;
  if (n <= tailLimit(row)) {
    const next = catalogRow(row, bars, row.firstTime, lastTime, row.sealedBlock, tail);
    ctx.putCatalog(next);
    return next;
  }
  const builder = new BlockBuilder(ctx, row);
  const first = blockOf(tail[0]!, row.timeframe);
  if (row.sealedBlock !== null && row.sealedBlock >= first) {
    const [blocks] = yield [{ ...keyPart(row), from: first, to: row.sealedBlock }];
    ctx.deleteBlocks(row, first, row.sealedBlock);
    for (const block of blocks!) builder.pushAll(blockColumns(block));
  }
  builder.pushAll(tailColumns(tail), 0, n - 1);
  builder.finish(false);
  const newest = builder.newestBlock === null ? row.sealedBlock : Math.max(builder.newestBlock, row.sealedBlock ?? builder.newestBlock);
  const next = catalogRow(row, bars, row.firstTime, lastTime, newest, lastOfTail(tail));
  ctx.putCatalog(next);
  return next;
}


/**
 * Incoming bars merged into a stored series anywhere in its history (incoming wins a tie): the
 * blocks the incoming span covers are read in windows and rewritten; the tail too when the span
 * reaches it (then all but the series' last bar go to blocks).
 */
export function* writeMerge(ctx: WriteContext, row: CatalogRow, incoming: Incoming): Step<SeriesResult> {
  const reachesTail = incoming.hi >= tailFirst(row.tail);
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
  if (reachesTail) mergeExisting(tailColumns(row.tail));
  while (cursor.time !== Number.POSITIVE_INFINITY) {
    cursor.emit(builder);
    if (ctx.full) yield [];
  }
  const tail = builder.finish(reachesTail) ?? row.tail;
  const newest = builder.newestBlock === null ? row.sealedBlock : Math.max(builder.newestBlock, row.sealedBlock ?? builder.newestBlock);
  const next = catalogRow(row, row.bars - existing + builder.count, Math.min(row.firstTime, incoming.lo), Math.max(row.lastTime, incoming.hi), newest, tail);
  ctx.putCatalog(next);
  ctx.touch(row, incoming.lo);
  return { row: next, ties };
}

/** A stored series' catalog row with new counts, times and tail. */
export function catalogRow(row: CatalogRow, bars: number, firstTime: number, lastTime: number, sealedBlock: number | null, tail: Tail): CatalogRow {
  return catalogRowOf(row, row.derived, bars, firstTime, lastTime, sealedBlock, tail, row.place);
}
