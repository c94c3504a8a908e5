/**
 * What the storage engine asks of a backend. The engine (`writer.ts`) is backend-independent
 * code written as a generator that yields these requests; the SQLite store answers them
 * synchronously inside one transaction, the PostgreSQL store asynchronously on one client inside
 * one transaction. So both backends run the same merging, sealing and derivation, bit for bit.
 */
import type { BlockRow, CatalogRow, SeriesKey } from "../blocks.js";

/**
 * Block rows of one series with numbers in [from, to], ascending; `newest` / `oldest`: only the
 * newest / oldest such row; `counts`: the rows' numbers and bar counts only (no column bytes).
 */
export interface BlockRange extends SeriesKey {
  from: number;
  to: number;
  newest?: boolean;
  oldest?: boolean;
  counts?: boolean;
}

/** Writes in the order they apply: block deletes, block inserts, catalog deletes, catalog upserts. */
export interface StoreChanges {
  deleteBlocks: BlockRange[];
  putBlocks: BlockRow[];
  deleteCatalog: SeriesKey[];
  putCatalog: CatalogRow[];
}

/** One request of the engine. */
export type IoRequest =
  /** Catalog rows (every timeframe) of these symbols of a market: answered with `CatalogRow[]`. */
  | { kind: "catalog"; market: string; symbols: readonly string[] }
  /** Block rows, every column, ascending by block per range: answered with `ReadBlock[][]` (one list per range). */
  | { kind: "blocks"; reads: readonly BlockRange[] }
  /** Writes: answered with nothing. */
  | { kind: "write"; changes: StoreChanges };

/** The engine as a generator over {@link IoRequest}s. */
export type Engine<T> = Generator<IoRequest, T, unknown>;

/** Runs an engine whose requests `answer` handles synchronously (SQLite, inside its transaction). */
export function runSync<T>(engine: Engine<T>, answer: (request: IoRequest) => unknown): T {
  let step = engine.next();
  while (!step.done) step = engine.next(answer(step.value));
  return step.value;
}

/** Runs an engine whose requests `answer` handles asynchronously (PostgreSQL, on its transaction's client). */
export async function runAsync<T>(engine: Engine<T>, answer: (request: IoRequest) => Promise<unknown>): Promise<T> {
  let step = engine.next();
  while (!step.done) step = engine.next(await answer(step.value));
  return step.value;
}

export function emptyChanges(): StoreChanges {
  return { deleteBlocks: [], putBlocks: [], deleteCatalog: [], putCatalog: [] };
}
