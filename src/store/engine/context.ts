/**
 * The state one write shares across its series (\`WriteContext\`: the block rows and catalog rows
 * to send, batched and bounded in memory; what was touched), the step a series' work yields
 * (block ranges to read), and the write path's sizes.
 */
import type { BlockRow, CatalogRow, ReadBlock, SeriesKey } from "../blocks.js";
import { type BlockRange, type Engine, type StoreChanges, emptyChanges } from "./io.js";
import type { CatalogWrite } from "./catalog-cache.js";
import type { TouchedSeries } from "../store.js";

/** Blocks read per round of a long rewrite: bounds the memory of a write whatever the series' size. */
export const WINDOW_BLOCKS = 16;
/** Symbols worked on together (their reads batched). */
export const GROUP_SYMBOLS = 256;
/** Bars merged into a tail in memory at most; more take the block path. */
export const TAIL_WRITE_MAX = 4096;
/** What a catalog row waiting to be sent costs, beside its tail's values (its key and six small arrays). */
export const CATALOG_ROW_BYTES = 1024;
/** Packed bytes waiting before they are sent to the backend. */
export const FLUSH_BYTES = 8 << 20;

/** A step of a task: it yields block ranges to read (none: only let the pending writes go first) and gets their blocks. */
export type Step<T> = Generator<readonly BlockRange[], T, ReadBlock[][]>;
export type Task = Step<void>;

export const keyOf = (k: SeriesKey): string => `${k.market}\u0000${k.timeframe}\u0000${k.symbol}`;

/** State shared by the tasks of one write. */
export class WriteContext {
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

/** A series key alone (a catalog or block row without its data). */
export const keyPart = (k: SeriesKey): SeriesKey => ({ market: k.market, timeframe: k.timeframe, symbol: k.symbol });
