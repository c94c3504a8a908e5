/**
 * What the SQLite and PostgreSQL bar stores share: a write of bars and a delete, from the checks
 * of the request to what listeners are told, around the one sequence of `engine/sequence.ts`.
 * A backend (`SqliteBarStore`, `PostgresBarStore`) gives the transaction that runs a sequence
 * and answers its requests with its SQL, and the markets that hold a symbol; nothing else of a
 * write is written twice.
 */
import { isTimeframe } from "../types.js";
import { XqlDataError } from "../errors.js";
import { CatalogCache } from "./engine/catalog-cache.js";
import type { Sequence } from "./engine/io.js";
import { deleteSequence, writeSequence } from "./engine/sequence.js";
import type { SeriesClaim } from "./series-owners.js";
import type { BarBatch, DeleteBarsRequest, ProgressListener, SymbolWrite, WriteOptions, WriteResult } from "./store.js";
import type { ChangeFeed } from "./watch.js";
import { symbolWrites } from "./write-batches.js";

/** The backend's part of a bar store built on the storage engine. */
export abstract class EngineStore {
  /** The catalog rows this handle's writes read and wrote, kept while no other writer commits. */
  protected readonly catalog = new CatalogCache();
  /** Watchers of writes: told of this handle's own commits here, of others' by the backend. */
  protected abstract readonly changes: ChangeFeed;

  /**
   * Runs `sequence` in one transaction, answering its requests, and commits; rolls back and
   * rejects when any step fails. `turn`, on a request-path write, is awaited between slices
   * of the work by a backend that shares the thread with other requests.
   */
  protected abstract transact<T>(sequence: Sequence<T>, turn?: () => Promise<void>): Promise<T>;

  /** The markets holding bars of `symbol`, sorted. */
  protected abstract marketsOf(symbol: string): Promise<string[]>;

  /** Removes the feed records of `symbol`'s series that hold no imported bars (`FORGET_EMPTY_FEEDS_SQL`). */
  protected abstract forgetEmptyFeeds(symbol: string): Promise<void>;

  /** Inserts or replaces bars in one transaction, all or nothing (`BarStore.upsertBars`). */
  async upsertBars(batches: readonly BarBatch[], onProgress?: ProgressListener, options: WriteOptions = {}): Promise<WriteResult> {
    for (const batch of batches) {
      if (!isTimeframe(batch.timeframe)) throw new XqlDataError("store-timeframe", { timeframe: String(batch.timeframe) });
    }
    return this.write(symbolWrites(batches), onProgress, options.claim, options.turn);
  }

  /**
   * Writes through the storage engine in one transaction: the bars, their derived timeframes,
   * the data version and the change log, all or nothing.
   */
  writeSeries(writes: readonly SymbolWrite[], onProgress?: ProgressListener, claim?: SeriesClaim): Promise<WriteResult> {
    return this.write(writes, onProgress, claim);
  }

  private async write(writes: readonly SymbolWrite[], onProgress?: ProgressListener, claim?: SeriesClaim, turn?: () => Promise<void>): Promise<WriteResult> {
    const total = writes.reduce((sum, w) => sum + w.incoming.reduce((s, i) => s + i.count, 0), 0);
    let done;
    try {
      done = await this.transact(writeSequence(writes, this.catalog, claim, onProgress && ((written) => onProgress(written, total))), turn);
    } catch (error) {
      // The rows the cache was given may be of a transaction that never committed.
      this.catalog.clear();
      throw error;
    }
    const { outcome, version, catalog } = done;
    catalog.committed(version);
    this.changes.publish(version, "local", outcome.touched);
    onProgress?.(outcome.written, total);
    return { written: outcome.written, replaced: outcome.replaced, symbols: outcome.symbols, version };
  }

  /**
   * Removes bars of one symbol's imported timeframes (all, or those opening at or after
   * `from`); the timeframes derived from them are then derived again from what remains (or
   * removed when nothing imported remains). One transaction with the data version.
   */
  async deleteBars(request: DeleteBarsRequest): Promise<number> {
    const markets = (await this.marketsOf(request.symbol)).filter((m) => request.market === undefined || m === request.market);
    const { deleted, version, touched } = await this.transact(deleteSequence(markets, request));
    if (version !== undefined) this.changes.publish(version, "local", touched);
    // A series left without bars has no source any more: its feed record goes too, so that a
    // sync may start it again from another feed or price side (the sync refuses to mix sides in
    // one series, and says to delete the bars first). A series that keeps older bars keeps it.
    await this.forgetEmptyFeeds(request.symbol);
    return deleted;
  }
}
