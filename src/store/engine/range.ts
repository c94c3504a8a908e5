/**
 * Ranges of a stored series: \`RangeReplacer\` replaces every bar opening in a range by bars
 * pushed in time order (a derived period aggregated again, a delete), \`streamSeries\` reads the
 * bars of a range (blocks in windows, then the tail).
 */
import { BarColumns } from "../../sessions/aggregate.js";
import { type CatalogRow, type Columns, blockColumns, blockOf, packBlock, packTail, tailColumns, tailFirst } from "../blocks.js";
import { WINDOW_BLOCKS, type Step, WriteContext, keyPart } from "./context.js";
import { BlockBuilder } from "./packing.js";
import { catalogRow, dropSeries, settleTail } from "./series.js";

/**
 * Replaces every bar of a series opening in [lo, hi] by bars pushed in time order (a derived
 * timeframe's touched periods, or a delete): only the blocks holding lo and hi are read, for the
 * bars around the range they keep; the blocks between are dropped after counting their bars.
 */
export class RangeReplacer {
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
    this.reachesTail = hi >= tailFirst(row.tail);
    if (lo >= tailFirst(row.tail)) {
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
    if (this.reachesTail) this.keep(tailColumns(row.tail));
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
      const t = tailColumns(row.tail);
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
      return yield* settleTail(ctx, row, packTail(tail.bars()), bars);
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
      else if (this.reachesTail) firstTime = tailFirst(tail);
      else {
        const [found] = yield [{ ...keyPart(row), from: blockOf(this.hi, row.timeframe) + 1, to: Number.MAX_SAFE_INTEGER, oldest: true }];
        firstTime = found!.length > 0 ? blockColumns(found![0]!).time[0]! : tailFirst(tail);
      }
    }
    const next = catalogRow(row, bars, firstTime, lastTime, sealedBlock, tail);
    ctx.putCatalog(next);
    return next;
  }

  /** Every bar from the range on is gone: the newest bar left, the last of the newest block before the range, becomes the tail. */
  private *tailFromBlocks(bars: number, firstTime: number): Step<CatalogRow> {
    const { ctx, row, lo } = this;
    const [found] = yield [{ ...keyPart(row), from: Number.MIN_SAFE_INTEGER, to: blockOf(Math.min(lo, tailFirst(row.tail)), row.timeframe), newest: true }];
    const block = found![0]!;
    const c = blockColumns(block);
    const n = c.time.length;
    ctx.deleteBlocks(row, block.block, block.block);
    if (n > 1) ctx.putBlock(packBlock(row, block.block, c, 0, n - 1, ctx.blockBytes));
    const next = catalogRow(row, bars, firstTime, c.time[n - 1]!, n > 1 ? block.block : block.block - 1, packTail(c, n - 1, n));
    ctx.putCatalog(next);
    return next;
  }
}

/** Streams the bars of a series opening in [from, to) (blocks in windows, then its tail), after this write's earlier steps. */
export function* streamSeries(row: CatalogRow, from: number, to: number, visit: (c: Columns, i: number) => void): Step<void> {
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
  const t = tailColumns(row.tail);
  for (let i = 0; i < t.time.length; i++) if (t.time[i]! >= from && t.time[i]! < to) visit(t, i);
}
