/**
 * An import's staging area: checked rows wait in a temporary file, not in memory, until the
 * whole file has been read, so the first bad line stops the import before the store is touched
 * and memory stays bounded whatever the file's size. Rows are kept per symbol in fragments of
 * one time-aligned block each (the store's blocks, `src/store/blocks.ts`): a file in time order
 * gives one fragment per block, which goes to the store as it is; rows out of order or given
 * twice show as several fragments of one block, merged (and their duplicates named) one block at
 * a time.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Timeframe } from "../types.js";
import { BLOCK_BARS, type Columns, blockStart } from "../store/blocks.js";
import { packedColumns } from "../sessions/aggregate.js";
import { type CsvImportError, duplicate } from "./errors.js";
import type { RowSink } from "./csv.js";
import { XqlDataError } from "../errors.js";

/** Values per staged row: time, open, high, low, close, volume and the line number. */
const FIELDS = 7;
/** Rows held in memory across all symbols before every partial fragment is closed. */
const BUFFERED_ROWS = 131_072;
/**
 * Bytes of closed fragments kept in memory: an import up to about 300,000 bars never touches
 * the disk; past that, every fragment goes to the staging file and memory stays at this bound
 * (held through the store's write, beside what the write itself needs).
 */
const MEMORY_BYTES = 16 << 20;
/** Bytes gathered before one write to the staging file. */
const WRITE_BYTES = 4 << 20;

const NO_ROWS = new Float64Array(0);

interface Fragment {
  block: number;
  /** Its rows while in memory; undefined once in the staging file. */
  rows: Float64Array | undefined;
  /** Byte offset in the staging file, once there. */
  offset: number;
  /** The order fragments were closed in (rows of one block merge in file order). */
  seq: number;
  n: number;
  /** Times strictly increasing within the fragment. */
  sorted: boolean;
}

/** One symbol's rows: the fragment being filled, and those written. */
class SymbolStage {
  block = Number.NaN;
  n = 0;
  rows = new Float64Array(16 * FIELDS);
  sorted = true;
  lastTime = Number.NEGATIVE_INFINITY;
  lastLine = 0;
  /** Every row so far later than the one before it: one sorted fragment per block, no merge. */
  inOrder = true;
  readonly fragments: Fragment[] = [];
  count = 0;
  lo = Number.POSITIVE_INFINITY;
  hi = Number.NEGATIVE_INFINITY;
  constructor(readonly symbol: string) {}
}

/** What one symbol brings to the store: its bars in order, however they came. */
export interface StagedSeries {
  symbol: string;
  /** Distinct bars. */
  count: number;
  lo: number;
  hi: number;
  /** The bars, oldest first, one block at a time (read from the staging file on each call). */
  chunks(): Iterable<Columns>;
}

/** A {@link RowSink} that stages rows in a temporary file; {@link Staging.finish} hands them over, {@link Staging.close} removes the file. */
export class Staging implements RowSink {
  private readonly symbols = new Map<string, SymbolStage>();
  private last: SymbolStage | undefined;
  private buffered = 0;
  private dir: string | undefined;
  private fd: number | undefined;
  private size = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Fragments in memory, in the order they were closed, and their bytes. */
  private held: Fragment[] = [];
  private heldBytes = 0;
  private closed = 0;
  /** Where fragments are read from the staging file into while a symbol's chunks are built (a block's worth). */
  private readonly scratch = new Float64Array(BLOCK_BARS * FIELDS);

  /** Milliseconds one block of the timeframe spans. */
  private readonly blockSpan: number;

  constructor(
    timeframe: Timeframe,
    private readonly parent: string = tmpdir(),
  ) {
    this.blockSpan = blockStart(1, timeframe);
  }

  add(symbol: string, time: number, open: number, high: number, low: number, close: number, volume: number, line: number): void {
    let stage = this.last;
    if (stage === undefined || stage.symbol !== symbol) {
      stage = this.symbols.get(symbol);
      if (!stage) this.symbols.set(symbol, (stage = new SymbolStage(symbol)));
      this.last = stage;
    }
    if (time <= stage.lastTime) {
      // The same bar twice in a row (a file repeated into itself) stops here, at its line.
      if (time === stage.lastTime) throw duplicate(symbol, time, line, stage.lastLine);
      stage.inOrder = false;
    }
    const block = Math.floor(time / this.blockSpan);
    if (block !== stage.block || stage.n === BLOCK_BARS) {
      this.spill(stage);
      stage.block = block;
    } else if (stage.n > 0 && !(time > stage.rows[(stage.n - 1) * FIELDS]!)) stage.sorted = false;
    if ((stage.n + 1) * FIELDS > stage.rows.length) {
      const wider = new Float64Array(Math.min(BLOCK_BARS, stage.n * 2) * FIELDS);
      wider.set(stage.rows);
      stage.rows = wider;
    }
    const r = stage.rows;
    const at = stage.n * FIELDS;
    r[at] = time;
    r[at + 1] = open;
    r[at + 2] = high;
    r[at + 3] = low;
    r[at + 4] = close;
    r[at + 5] = volume;
    r[at + 6] = line;
    stage.n++;
    stage.count++;
    stage.lastTime = time;
    stage.lastLine = line;
    if (time < stage.lo) stage.lo = time;
    if (time > stage.hi) stage.hi = time;
    if (++this.buffered >= BUFFERED_ROWS) {
      for (const s of this.symbols.values()) this.spill(s);
    }
  }

  /** Closes a symbol's fragment in the making (row-major: the values of a row together), in memory while the budget allows. */
  private spill(stage: SymbolStage): void {
    const n = stage.n;
    if (n === 0) return;
    const rows = stage.rows.slice(0, n * FIELDS);
    const fragment: Fragment = { block: stage.block, rows, offset: -1, seq: this.closed++, n, sorted: stage.sorted };
    stage.fragments.push(fragment);
    this.held.push(fragment);
    this.heldBytes += rows.byteLength;
    this.buffered -= n;
    stage.n = 0;
    stage.sorted = true;
    stage.block = Number.NaN;
    // With thousands of symbols, a buffer shrinks back once closed: they must not each keep a block's worth.
    if (this.symbols.size > 256 && stage.rows.length > 16 * FIELDS) stage.rows = new Float64Array(16 * FIELDS);
    if (this.heldBytes >= MEMORY_BYTES) this.toDisk();
  }

  /** Moves every fragment held in memory to the staging file. */
  private toDisk(): void {
    for (const fragment of this.held) {
      const bytes = Buffer.from(fragment.rows!.buffer, fragment.rows!.byteOffset, fragment.rows!.byteLength);
      fragment.offset = this.size + this.pendingBytes;
      fragment.rows = undefined;
      this.pending.push(bytes);
      this.pendingBytes += bytes.length;
      if (this.pendingBytes >= WRITE_BYTES) this.writePending();
    }
    this.writePending();
    this.held = [];
    this.heldBytes = 0;
  }

  private writePending(): void {
    if (this.pendingBytes === 0) return;
    if (this.fd === undefined) {
      this.dir = mkdtempSync(join(this.parent, "xql-import-"));
      this.fd = openSync(join(this.dir, "staged"), "w+");
    }
    let at = this.size;
    for (const data of this.pending) {
      let done = 0;
      while (done < data.length) done += writeSync(this.fd, data, done, data.length - done, at + done);
      at += data.length;
    }
    this.size = at;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /**
   * A fragment's rows: those held, or read from the staging file into `into` when it has room
   * (the caller copies them out before the next read), else into a new array.
   */
  private read(fragment: Fragment, into?: Float64Array): Float64Array {
    if (fragment.rows) return fragment.rows;
    const values = fragment.n * FIELDS;
    const rows = into && into.length >= values ? into.subarray(0, values) : new Float64Array(values);
    const target = Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength);
    let done = 0;
    while (done < target.length) {
      const n = readSync(this.fd!, target, done, target.length - done, fragment.offset + done);
      if (n === 0) throw new XqlDataError("import-staging", {});
      done += n;
    }
    return rows;
  }

  /**
   * Every symbol's staged bars, once the last row is in. Symbols whose rows came out of order
   * are merged block by block here, once, to count their bars and find a bar given twice: the
   * earliest such line is thrown as a {@link CsvImportError} before anything is written.
   */
  finish(): StagedSeries[] {
    for (const stage of this.symbols.values()) {
      this.spill(stage);
      // No more rows come: the buffer of each symbol's fragment in the making goes.
      stage.rows = NO_ROWS;
    }
    // A large import's fragments still in memory join the others in the file: the store's write
    // reads them from there (the operating system's cache) instead of holding up to
    // MEMORY_BYTES beside everything the write needs. A small one stays in memory.
    if (this.fd !== undefined) this.toDisk();
    let first: CsvImportError | undefined;
    const out: StagedSeries[] = [];
    for (const stage of this.symbols.values()) {
      const groups = this.groups(stage);
      let count = stage.count;
      if (!stage.inOrder) {
        count = 0;
        for (const group of groups) {
          const merged = this.merge(stage.symbol, group);
          if (merged.duplicate && (!first || merged.duplicate.line < first.line)) first = merged.duplicate;
          count += merged.bars.time.length;
        }
      }
      const inOrder = stage.inOrder;
      out.push({ symbol: stage.symbol, count, lo: stage.lo, hi: stage.hi, chunks: () => this.chunks(stage.symbol, groups, inOrder) });
    }
    if (first) throw first;
    return out;
  }

  /** A symbol's fragments by block (in the order written within a block). */
  private groups(stage: SymbolStage): Fragment[][] {
    const order = stage.inOrder ? stage.fragments : [...stage.fragments].sort((a, b) => a.block - b.block || a.seq - b.seq);
    const groups: Fragment[][] = [];
    for (const fragment of order) {
      const group = groups[groups.length - 1];
      if (group && group[0]!.block === fragment.block) group.push(fragment);
      else groups.push([fragment]);
    }
    return groups;
  }

  /** The bars of one block's fragments, oldest first, with the earliest duplicate found. */
  private merge(symbol: string, group: readonly Fragment[]): { bars: Columns; duplicate?: CsvImportError } {
    const byTime = new Map<number, { rows: Float64Array; at: number }>();
    let found: CsvImportError | undefined;
    for (const fragment of group) {
      const rows = this.read(fragment);
      for (let i = 0; i < fragment.n; i++) {
        const at = i * FIELDS;
        const time = rows[at]!;
        const held = byTime.get(time);
        if (held) {
          const error = duplicate(symbol, time, rows[at + 6]!, held.rows[held.at + 6]!);
          if (!found || error.line < found.line) found = error;
          continue;
        }
        byTime.set(time, { rows, at });
      }
    }
    const times = [...byTime.keys()].sort((a, b) => a - b);
    const n = times.length;
    const bars: Columns = { time: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
    times.forEach((time, k) => {
      const { rows, at } = byTime.get(time)!;
      bars.time[k] = time;
      bars.open[k] = rows[at + 1]!;
      bars.high[k] = rows[at + 2]!;
      bars.low[k] = rows[at + 3]!;
      bars.close[k] = rows[at + 4]!;
      bars.volume[k] = rows[at + 5]!;
    });
    return found ? { bars, duplicate: found } : { bars };
  }

  /**
   * A symbol's bars block by block. A block's fragments are copied one after another when the
   * symbol's rows came in time order (a wide file closes every symbol's fragment many times in a
   * block, each later than the one before), merged otherwise.
   */
  private *chunks(symbol: string, groups: readonly Fragment[][], inOrder: boolean): Iterable<Columns> {
    for (const group of groups) {
      if (!inOrder && (group.length > 1 || !group[0]!.sorted)) {
        yield this.merge(symbol, group).bars;
        continue;
      }
      let n = 0;
      for (const fragment of group) n += fragment.n;
      // One buffer for the six columns; fragments read from the file into one scratch array,
      // copied out at once (a wide import reads 80,000 small fragments: an array each was
      // memory the allocator kept after the import had done with it).
      const bars: Columns = packedColumns(n);
      let i = 0;
      for (const fragment of group) {
        const rows = this.read(fragment, this.scratch);
        for (let at = 0; at < fragment.n * FIELDS; i++, at += FIELDS) {
          bars.time[i] = rows[at]!;
          bars.open[i] = rows[at + 1]!;
          bars.high[i] = rows[at + 2]!;
          bars.low[i] = rows[at + 3]!;
          bars.close[i] = rows[at + 4]!;
          bars.volume[i] = rows[at + 5]!;
        }
      }
      yield bars;
    }
  }

  /** Removes the staging file. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
