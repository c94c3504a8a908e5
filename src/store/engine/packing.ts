/**
 * Bars into block rows: \`BlockBuilder\` packs bars pushed in time order into blocks (holding the
 * last back as a tail when asked), \`Cursor\` reads bars one at a time from chunks, and the merge
 * of incoming bars into stored ones (incoming wins a tie).
 */
import { BarColumns, packedColumns } from "../../sessions/aggregate.js";
import { BLOCK_BARS, type Columns, NO_COLUMNS, appendColumns, type SeriesKey, blockOf, packBlock, sliceColumns } from "../blocks.js";
import { WriteContext } from "./context.js";

/** A builder's buffer before its first bar (never written to: `push` replaces it). */
export const EMPTY_BUFFER = new BarColumns(0);

/** Packs bars pushed in time order into block rows; holds back the last bar as a tail when asked. */
export class BlockBuilder {
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
export class Cursor {
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
export function mergeColumns(existing: Columns, incoming: Columns): { merged: Columns; ties: number } {
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
export function collect(chunks: Iterable<Columns>, capacity: number): Columns {
  const list = [...chunks];
  if (list.length === 1) return list[0]!;
  const out = new BarColumns(Math.max(1, capacity));
  for (const c of list) out.pushRange(c);
  return out.bars();
}

export function lastBar(c: Columns): Columns {
  return sliceColumns(c, c.time.length - 1, c.time.length);
}
