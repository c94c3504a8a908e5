/**
 * The state one write shares across its series (\`WriteContext\`: the block rows and catalog rows
 * to send, batched and bounded in memory; what was touched), the step a series' work yields
 * (block ranges to read), and the write path's sizes.
 */
import { BLOCK_BARS, type BlockRow, type CatalogRow, type ReadBlock, type SeriesKey } from "../blocks.js";
import { type BlockRange, type Engine, type StoreChanges, emptyChanges } from "./io.js";
import type { CatalogWrite } from "./catalog-cache.js";
import type { TouchedSeries } from "../store.js";
import type { Timeframe } from "../../types.js";
import { BarAggregator, BarColumns } from "../../sessions/aggregate.js";

/** Blocks read per round of a long rewrite: bounds the memory of a write whatever the series' size. */
export const WINDOW_BLOCKS = 16;
/** Symbols worked on together (their reads batched). */
export const GROUP_SYMBOLS = 256;
/** Bars merged into a tail in memory at most; more take the block path. */
export const TAIL_WRITE_MAX = 4096;
/** Block bytes waiting before they are sent to the backend. */
export const FLUSH_BYTES = 2 << 20;
/**
 * Bytes of each of the two arrays a large write packs its block rows into (`blockBytes`): room
 * for a flush's worth and what the tasks of a group add before they next pause.
 */
const ARENA_BYTES = 2 * FLUSH_BYTES;
/** Block bytes a write packs on their own before it takes its arrays (a small write never does). */
const ARENA_AFTER = 256 << 10;
/**
 * Catalog rows waiting before they are sent (one PostgreSQL statement's worth): a write of many
 * series (an append to 10,000 symbols, an import of as many new ones) holds little block data
 * but a row with its tail per series, a few hundred bytes each. PostgreSQL applies a batch
 * while the engine builds the next, and the last batch is what the commit waits for: batches
 * of 4,000 rows, not 10,000, left an append of 40,000 rows less of that wait.
 */
export const FLUSH_ROWS = 4_000;

/** A step of a task: it yields block ranges to read (none: only let the pending writes go first) and gets their blocks. */
export type Step<T> = Generator<readonly BlockRange[], T, ReadBlock[][]>;
export type Task = Step<void>;

/**
 * Values per series, found by the key's three parts in turn: a write touching 40,000 series
 * (one bar to 10,000 symbols and their derived timeframes) hashes the strings it already holds
 * instead of building a joined key per series and step.
 */
export class SeriesMap<V> {
  private readonly byPair = new Map<string, Map<Timeframe, Map<string, V>>>();
  size = 0;

  get(k: SeriesKey): V | undefined {
    return this.byPair.get(k.market)?.get(k.timeframe)?.get(k.symbol);
  }

  set(k: SeriesKey, value: V): void {
    const bySymbol = this.symbolsOf(k);
    const before = bySymbol.size;
    bySymbol.set(k.symbol, value);
    this.size += bySymbol.size - before;
  }

  /** The value of `k`, made by `make` when there is none (a function of the key: no closure per call). */
  getOrSet(k: SeriesKey, make: (k: SeriesKey) => V): V {
    const bySymbol = this.symbolsOf(k);
    let value = bySymbol.get(k.symbol);
    if (value === undefined) {
      bySymbol.set(k.symbol, (value = make(k)));
      this.size++;
    }
    return value;
  }

  private symbolsOf(k: SeriesKey): Map<string, V> {
    let byTimeframe = this.byPair.get(k.market);
    if (!byTimeframe) this.byPair.set(k.market, (byTimeframe = new Map()));
    let bySymbol = byTimeframe.get(k.timeframe);
    if (!bySymbol) byTimeframe.set(k.timeframe, (bySymbol = new Map()));
    return bySymbol;
  }

  delete(k: SeriesKey): void {
    const bySymbol = this.byPair.get(k.market)?.get(k.timeframe);
    if (bySymbol?.delete(k.symbol)) this.size--;
  }

  clear(): void {
    this.byPair.clear();
    this.size = 0;
  }

  *values(): IterableIterator<V> {
    for (const byTimeframe of this.byPair.values()) for (const bySymbol of byTimeframe.values()) yield* bySymbol.values();
  }

  /** The values, in an array. */
  list(): V[] {
    const out: V[] = [];
    for (const byTimeframe of this.byPair.values()) for (const bySymbol of byTimeframe.values()) for (const v of bySymbol.values()) out.push(v);
    return out;
  }
}

/** State shared by the tasks of one write. */
export class WriteContext {
  private changes: StoreChanges = emptyChanges();
  /** Block rows to insert, per series: a later delete of the same series drops them here. */
  private readonly puts = new SeriesMap<BlockRow[]>();
  private readonly catalog = new SeriesMap<CatalogRow>();
  /**
   * Catalog rows of series an append changed once, and no other step of this write changes
   * (`putOnce`): a list, not the map, for they need no finding again. An append to 10,000
   * symbols sends 40,000 rows, and each lookup by key in maps that large waits on memory.
   */
  private once: CatalogRow[] = [];
  /** Series an append touched once (`touchOnce`), for the same reason. */
  private readonly touchedOnce: TouchedSeries[] = [];
  private pendingBytes = 0;
  private readonly touchedMap = new SeriesMap<TouchedSeries>();
  written = 0;
  replaced = 0;
  /** The coarse bars an append folds out of one series' new bars (used and emptied by one series at a time). */
  readonly folded = new BarColumns(4);
  private readonly aggregators = new Map<string, Map<Timeframe, BarAggregator>>();
  private readonly buffers: BarColumns[] = [];

  /**
   * The two arrays block rows are packed into, one per flush in turn, and how much of the
   * current one is used. A backend is done with a write's block bytes once it has answered the
   * next write (io.ts), so the array of the flush before last is free again: a write of 10,000
   * new symbols packed 50 MB of block rows into buffers of their own, kept by the collector long
   * after they were sent, beyond what the import may take.
   */
  private readonly arenas: Buffer[] = [];
  private arena = 0;
  private arenaUsed = 0;
  private packed = 0;

  /** `held`: the store handle's catalog rows, told of every change sent. */
  constructor(private readonly held?: CatalogWrite) {}

  /** Room for one block row's bytes (`size`, a multiple of 8), valid until the flush after next. */
  readonly blockBytes = (size: number): Buffer => {
    this.packed += size;
    if (this.packed <= ARENA_AFTER) return Buffer.allocUnsafe(size);
    let arena = this.arenas[this.arena];
    if (arena === undefined) this.arenas[this.arena] = arena = Buffer.allocUnsafeSlow(ARENA_BYTES);
    // Past the array's end (a group that kept on long after a flush was due): a buffer of its own.
    if (this.arenaUsed + size > arena.length) return Buffer.allocUnsafe(size);
    const bytes = arena.subarray(this.arenaUsed, this.arenaUsed + size);
    this.arenaUsed += size;
    return bytes;
  };

  /**
   * A block's worth of columns for a block builder, returned when it finishes: a write of 10,000
   * new symbols builds 40,000 series (their derived timeframes too), and a new 12 KB buffer each
   * was half a gigabyte for the allocator, its freed chunks still counted in the process's size.
   */
  takeBuffer(): BarColumns {
    const buffer = this.buffers.pop() ?? new BarColumns(BLOCK_BARS);
    buffer.length = 0;
    return buffer;
  }

  returnBuffer(buffer: BarColumns): void {
    if (this.buffers.length < 64) this.buffers.push(buffer);
  }

  /** An aggregator of `timeframe` bars in `market`, one per write (each use starts it with `resume` and ends it with `finish`). */
  aggregator(timeframe: Timeframe, market: string): BarAggregator {
    let byTimeframe = this.aggregators.get(market);
    if (!byTimeframe) this.aggregators.set(market, (byTimeframe = new Map()));
    let aggregator = byTimeframe.get(timeframe);
    if (!aggregator) byTimeframe.set(timeframe, (aggregator = new BarAggregator(timeframe, market)));
    return aggregator;
  }

  putBlock(row: BlockRow): void {
    const list = this.puts.get(row);
    if (list) list.push(row);
    else this.puts.set(row, [row]);
    this.pendingBytes += row.n * 48 + 64;
  }

  /** Block rows of the series in [from, to] go, those this write put there before included. */
  deleteBlocks(key: SeriesKey, from: number, to: number): void {
    const list = this.puts.get(key);
    if (list) {
      const kept = list.filter((row) => row.block < from || row.block > to);
      if (kept.length > 0) this.puts.set(key, kept);
      else this.puts.delete(key);
    }
    this.changes.deleteBlocks.push({ market: key.market, timeframe: key.timeframe, symbol: key.symbol, from, to });
  }

  /** The catalog row goes out with the next flush (the latest version of it). */
  putCatalog(row: CatalogRow): void {
    this.catalog.set(row, row);
  }

  deleteCatalog(key: SeriesKey): void {
    this.catalog.delete(key);
    this.changes.deleteCatalog.push({ market: key.market, timeframe: key.timeframe, symbol: key.symbol });
  }

  /** The row of a series no other step of this write puts or deletes (an append's): it goes out with the next flush. */
  putOnce(row: CatalogRow): void {
    this.once.push(row);
  }

  touch(key: SeriesKey, from: number): void {
    const held = this.touchedMap.getOrSet(key, untouched);
    if (from < held.from) held.from = from;
  }

  /** A change from `from` on to a series no other step of this write touches (an append's). */
  touchOnce(key: SeriesKey, from: number): void {
    this.touchedOnce.push({ market: key.market, timeframe: key.timeframe, symbol: key.symbol, from });
  }

  /** Every series the write changed, each once, with the earliest time its change starts. */
  touched(): TouchedSeries[] {
    const list = this.touchedMap.list();
    return list.length === 0 ? this.touchedOnce : list.concat(this.touchedOnce);
  }

  get full(): boolean {
    return this.pendingBytes >= FLUSH_BYTES || this.catalog.size + this.once.length >= FLUSH_ROWS;
  }

  /** Sends the pending writes (catalog rows last, so a row never names a block not yet written). */
  *flush(): Engine<void> {
    if (this.catalog.size === 0 && this.once.length === 0 && this.changes.deleteBlocks.length === 0 && this.puts.size === 0 && this.changes.deleteCatalog.length === 0) return;
    const changes = this.changes;
    for (const list of this.puts.values()) for (const row of list) changes.putBlocks.push(row);
    this.puts.clear();
    changes.putCatalog = this.catalog.size === 0 ? this.once : this.catalog.list().concat(this.once);
    this.catalog.clear();
    this.once = [];
    this.changes = emptyChanges();
    this.pendingBytes = 0;
    yield { kind: "write", changes };
    this.held?.wrote(changes);
    // The next flush's rows go to the other array: this one's are the backend's until it answers that flush.
    this.arena ^= 1;
    this.arenaUsed = 0;
  }
}

/** A series not touched yet: any change's start is before its `from`. */
const untouched = (k: SeriesKey): TouchedSeries => ({ market: k.market, timeframe: k.timeframe, symbol: k.symbol, from: Number.POSITIVE_INFINITY });

/** A series key alone (a catalog or block row without its data). */
export const keyPart = (k: SeriesKey): SeriesKey => ({ market: k.market, timeframe: k.timeframe, symbol: k.symbol });
