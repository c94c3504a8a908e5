/**
 * Bars into block rows: \`BlockBuilder\` packs bars pushed in time order into blocks (holding the
 * last back as a tail when asked), \`Cursor\` reads bars one at a time from chunks, and the merge
 * of incoming bars into stored ones (incoming wins a tie).
 */
import { BarColumns, type CoarseBar } from "../../sessions/aggregate.js";
import { type Columns, NO_COLUMNS, type SeriesKey, type Tail, blockOf, newTail, packBlock } from "../blocks.js";
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
    this.place(time);
    this.buffer.push(time, open, high, low, close, volume);
  }

  /** Pushes a bar built elsewhere (an aggregator's). */
  pushBar(bar: CoarseBar): void {
    this.push(bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume);
  }

  /** Pushes bar `i` of `c` (its values read here, not passed on: a call not inlined boxes every double it is given). */
  pushAt(c: Columns, i: number): void {
    const time = c.time[i]!;
    this.place(time);
    this.buffer.push(time, c.open[i]!, c.high[i]!, c.low[i]!, c.close[i]!, c.volume[i]!);
  }

  /** Makes room for a bar at `time`: its block sealed when the bar starts another, the counts kept. */
  private place(time: number): void {
    if (this.buffer === EMPTY_BUFFER) this.buffer = this.ctx.takeBuffer();
    const block = blockOf(time, this.key.timeframe);
    if (block !== this.block) {
      this.seal();
      this.block = block;
    }
    if (this.count === 0) this.first = time;
    this.last = time;
    this.count++;
  }

  pushAll(c: Columns, from = 0, to = c.time.length): void {
    for (let i = from; i < to; i++) this.pushAt(c, i);
  }

  private seal(): void {
    const n = this.buffer.length;
    if (n === 0) return;
    this.ctx.putBlock(packBlock(this.key, this.block, this.buffer.bars(), 0, n, this.ctx.blockBytes));
    this.newestBlock = this.newestBlock === null ? this.block : Math.max(this.newestBlock, this.block);
    this.buffer.length = 0;
  }

  /** Writes what is buffered; with `holdLast`, the last bar pushed is returned as a one-bar tail instead. */
  finish(holdLast: boolean): Tail | undefined {
    let tail: Tail | undefined;
    if (holdLast && this.buffer.length > 0) {
      const n = --this.buffer.length;
      tail = newTail(1);
      putBar(tail, 1, 0, this.buffer, n);
    }
    this.seal();
    // Sealed rows and the tail are copies: the buffer serves the write's next builder.
    if (this.buffer !== EMPTY_BUFFER) this.ctx.returnBuffer(this.buffer);
    this.buffer = EMPTY_BUFFER;
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
 * Merges sorted `incoming` bars into a tail (incoming wins a tie): the new tail, built in one
 * pass straight into its packed array, and how many ties there were.
 */
export function mergeTail(tail: Tail, incoming: Columns): { merged: Tail; ties: number } {
  const n = tail.length / 6;
  const m = incoming.time.length;
  const it = incoming.time;
  let ties = 0;
  // An append, the usual write, has none: every incoming bar follows every stored one.
  if (n > 0 && m > 0 && it[0]! <= tail[n - 1]!) {
    for (let i = 0, j = 0; i < n && j < m; ) {
      const te = tail[i]!;
      const ti = it[j]!;
      if (ti <= te) j++;
      if (te <= ti) i++;
      if (te === ti) ties++;
    }
  }
  const k = n + m - ties;
  const out = newTail(k);
  let i = 0;
  let j = 0;
  for (let p = 0; p < k; p++) {
    const te = i < n ? tail[i]! : Number.POSITIVE_INFINITY;
    const ti = j < m ? it[j]! : Number.POSITIVE_INFINITY;
    if (ti <= te) {
      putBar(out, k, p, incoming, j++);
      if (te === ti) i++;
    } else {
      for (let c = 0; c < 6; c++) out[c * k + p] = tail[c * n + i]!;
      i++;
    }
  }
  return { merged: out, ties };
}

/** Bar `i` of `from` into place `p` of `tail`, a tail of `k` bars. */
export function putBar(tail: Tail, k: number, p: number, from: Columns, i: number): void {
  tail[p] = from.time[i]!;
  tail[k + p] = from.open[i]!;
  tail[2 * k + p] = from.high[i]!;
  tail[3 * k + p] = from.low[i]!;
  tail[4 * k + p] = from.close[i]!;
  tail[5 * k + p] = from.volume[i]!;
}

/** A tail's bars but its last, then bars `[0, count)` of `bars`: a coarse tail whose last bar was folded. */
export function replaceLast(tail: Tail, bars: Columns, count: number): Tail {
  const n = tail.length / 6 - 1;
  const k = n + count;
  const out = newTail(k);
  for (let c = 0; c < 6; c++) for (let p = 0; p < n; p++) out[c * k + p] = tail[c * (n + 1) + p]!;
  for (let i = 0; i < count; i++) putBar(out, k, n + i, bars, i);
  return out;
}

/** The last bar of a tail, as a one-bar tail. */
export function lastOfTail(tail: Tail): Tail {
  const n = tail.length / 6;
  const out = newTail(1);
  for (let c = 0; c < 6; c++) out[c] = tail[c * n + n - 1]!;
  return out;
}

/** All bars of `chunks` in one set of columns (small inputs only; a single chunk as it is). */
export function collect(chunks: Iterable<Columns>, capacity: number): Columns {
  const list = [...chunks];
  if (list.length === 1) return list[0]!;
  const out = new BarColumns(Math.max(1, capacity));
  for (const c of list) out.pushRange(c);
  return out.bars();
}

