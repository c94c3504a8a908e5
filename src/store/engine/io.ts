/**
 * What the storage engine asks of a backend. The engine (`writer.ts`) is backend-independent
 * code written as a generator that yields these requests; the SQLite store answers them
 * synchronously inside one transaction, the PostgreSQL store asynchronously on one client inside
 * one transaction. So both backends run the same merging, sealing and derivation, bit for bit.
 */
import type { BlockRow, CatalogRow, SeriesKey } from "../blocks.js";
import type { SeriesClaim } from "../series-owners.js";
import type { SymbolWrite, TouchedSeries } from "../store.js";

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
  /**
   * Writes: answered with nothing. The bytes of the block rows stay the backend's until it has
   * answered the next write (a backend may still be sending them meanwhile); the engine packs
   * new rows into them only after that.
   */
  | { kind: "write"; changes: StoreChanges }
  /** One series' step is done: a runner that shares the thread may let other work in here; answered with nothing. */
  | { kind: "pause" };

/**
 * What a write's sequence (`sequence.ts`) asks of the transaction around the engine's work:
 * the same steps on every backend, each answered with the backend's SQL.
 */
export type TxRequest =
  /** Check and record the series the write creates for the claim's account (throws `SeriesLimitError`): answered with nothing. */
  | { kind: "claim"; writes: readonly SymbolWrite[]; claim: SeriesClaim }
  /** Hold the write lock of these markets until the transaction ends: answered with nothing. */
  | { kind: "lock"; markets: readonly string[] }
  /** The data version the transaction sees: answered with a number. */
  | { kind: "version" }
  /** Advance the data version (and tell other processes at commit): answered with the new version. */
  | { kind: "bump" }
  /** Record what the write of `version` touched in the change log: answered with nothing. */
  | { kind: "log"; version: number; touched: readonly TouchedSeries[] };

/** A request of a whole write: the engine's or the transaction's. */
export type SequenceRequest = IoRequest | TxRequest;

/** The engine as a generator over {@link IoRequest}s. */
export type Engine<T> = Generator<IoRequest, T, unknown>;

/** A whole write (`sequence.ts`) as a generator over {@link SequenceRequest}s. */
export type Sequence<T> = Generator<SequenceRequest, T, unknown>;

/** Runs an engine whose requests `answer` handles synchronously (SQLite, inside its transaction). */
export function runSync<T, R extends { kind: string }>(engine: Generator<R, T, unknown>, answer: (request: R) => unknown): T {
  let step = engine.next();
  while (!step.done) step = engine.next(step.value.kind === "pause" ? undefined : answer(step.value));
  return step.value;
}

/**
 * Runs an engine whose requests `answer` handles asynchronously (PostgreSQL, on its transaction's
 * client). With `turnMs`, the event loop gets a turn at the engine's pauses once that long has
 * passed since the last: a backend that answers writes without waiting for them then hears
 * their replies, and sends what follows, while the engine works on.
 */
export async function runAsync<T, R extends { kind: string }>(engine: Generator<R, T, unknown>, answer: (request: R) => Promise<unknown>, turnMs?: number): Promise<T> {
  let since = performance.now();
  let step = engine.next();
  while (!step.done) {
    if (step.value.kind !== "pause") step = engine.next(await answer(step.value));
    else {
      if (turnMs !== undefined && performance.now() - since >= turnMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        since = performance.now();
      }
      step = engine.next(undefined);
    }
  }
  return step.value;
}

export function emptyChanges(): StoreChanges {
  return { deleteBlocks: [], putBlocks: [], deleteCatalog: [], putCatalog: [] };
}

/**
 * A write's changes in pieces of at most `rows` rows that apply in the same order (block deletes,
 * block inserts, catalog deletes, catalog upserts): a runner that shares the thread sends them
 * one at a time inside its transaction, with other work between.
 */
export function changesInPieces(changes: StoreChanges, rows: number): StoreChanges[] {
  const pieces: StoreChanges[] = [];
  for (let at = 0; at === 0 || at < changes.putBlocks.length; at += rows) {
    pieces.push({ ...emptyChanges(), deleteBlocks: at === 0 ? changes.deleteBlocks : [], putBlocks: changes.putBlocks.slice(at, at + rows) });
  }
  for (let at = 0; at === 0 || at < changes.putCatalog.length; at += rows) {
    pieces.push({ ...emptyChanges(), deleteCatalog: at === 0 ? changes.deleteCatalog : [], putCatalog: changes.putCatalog.slice(at, at + rows) });
  }
  return pieces;
}

/**
 * Runs an engine whose requests `answer` handles synchronously, letting other work in at the
 * engine's pauses and between pieces of its writes once `sliceMs` has passed since the last
 * turn (`turn` resolves when this write may go on). The caller holds the transaction open
 * across the turns, on a connection no one else reads from.
 */
export async function runSliced<T>(engine: Sequence<T>, answer: (request: SequenceRequest) => unknown, turn: () => Promise<void>, sliceMs: number): Promise<T> {
  let since = performance.now();
  const maybeTurn = async (): Promise<void> => {
    if (performance.now() - since < sliceMs) return;
    await turn();
    since = performance.now();
  };
  let step = engine.next();
  while (!step.done) {
    const request = step.value;
    if (request.kind === "pause") {
      await maybeTurn();
      step = engine.next(undefined);
    } else if (request.kind === "write") {
      for (const piece of changesInPieces(request.changes, WRITE_PIECE_ROWS)) {
        answer({ kind: "write", changes: piece });
        await maybeTurn();
      }
      step = engine.next(undefined);
    } else step = engine.next(answer(request));
  }
  return step.value;
}

/** Rows of one piece of a sliced write. */
const WRITE_PIECE_ROWS = 512;
