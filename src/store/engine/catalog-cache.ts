/**
 * The catalog rows (every series' counts, last block and tail) a store handle has read or written,
 * kept between its writes: a write that finds its symbols here reads no catalog row, so an append
 * of one bar to thousands of series goes straight to merging tails and writing.
 *
 * The rows are those of one data version, the one this handle's last write committed. Every
 * write of bars, by any process, advances the data version in its transaction, so a write that
 * starts at another version (another connection or process wrote since) drops everything held
 * and reads again. Rows change here only when the write that changed them has committed; a write
 * that fails, or commits at a version that shows another writer came in between (PostgreSQL
 * writers of other markets run side by side), leaves nothing held.
 */
import type { Timeframe } from "../../types.js";
import type { CatalogRow } from "../blocks.js";
import type { StoreChanges } from "./io.js";

/** Estimated bytes of the rows held at most (a row's columns plus its keys and object). */
const BUDGET_BYTES = 64 << 20;
/**
 * A row's heap beside its values: the object, its key strings and six small typed arrays (about
 * 150 bytes each in V8). Measured, not guessed: at 256 a write of 10,000 new symbols (80,000
 * rows with the derived timeframes) held 120 MB against a 64 MB budget.
 */
const ROW_BYTES = 1280;

const rowBytes = (row: CatalogRow): number => ROW_BYTES + row.tail.length * 8;

/** Rows of one symbol, by timeframe. */
type SymbolRows = Map<Timeframe, CatalogRow>;

export class CatalogCache {
  /** The data version the rows held are of; null when nothing is held. */
  private version: number | null = null;
  /** Per market, per symbol: every catalog row of the symbol (none: the symbol holds no series). */
  private readonly markets = new Map<string, Map<string, SymbolRows>>();
  private bytes = 0;
  /** Symbols were dropped to keep within the budget: none are admitted until the cache starts afresh. */
  private full = false;

  /** Starts a write whose transaction sees data version `version` (before its own bump). */
  begin(version: number): CatalogWrite {
    if (version !== this.version) this.clear();
    return new CatalogWrite(this, version);
  }

  /** Drops everything held (a write failed, or changed the catalog without telling the cache). */
  clear(): void {
    this.version = null;
    this.markets.clear();
    this.bytes = 0;
    this.full = false;
  }

  /** The rows of a symbol held at `version`, or undefined when they are not held. */
  held(version: number, market: string, symbol: string): ReadonlyMap<Timeframe, CatalogRow> | undefined {
    return version === this.version ? this.markets.get(market)?.get(symbol) : undefined;
  }

  /** A write that started at `start` committed `version` with these reads and changes. */
  committed(start: number, version: number, loaded: readonly LoadedSymbols[], changes: readonly StoreChanges[]): void {
    // Held rows of another version (a write of this handle committed in between), or another
    // writer committed between this write's start and its bump: what changed is unknown here.
    if ((start !== this.version && this.version !== null) || version !== start + 1) {
      this.clear();
      return;
    }
    this.version = version;
    for (const { market, symbols, rows } of loaded) this.admit(market, symbols, rows);
    for (const { deleteCatalog, putCatalog } of changes) {
      for (const key of deleteCatalog) {
        const rows = this.markets.get(key.market)?.get(key.symbol);
        const old = rows?.get(key.timeframe);
        if (!old) continue;
        rows!.delete(key.timeframe);
        this.bytes -= rowBytes(old);
      }
      // An append sends a symbol's rows one after another: its rows are found once for them.
      let rows: SymbolRows | undefined;
      let market: string | undefined;
      let symbol: string | undefined;
      for (const row of putCatalog) {
        if (row.symbol !== symbol || row.market !== market) {
          market = row.market;
          symbol = row.symbol;
          rows = this.markets.get(market)?.get(symbol);
        }
        if (!rows) continue;
        const old = rows.get(row.timeframe);
        if (old) this.bytes -= rowBytes(old);
        rows.set(row.timeframe, row);
        this.bytes += rowBytes(row);
      }
    }
    // Symbols admitted empty (a write's new series) are filled only here, past the budget when
    // the write was large: the newest symbols go again, and no more are admitted.
    if (this.bytes > BUDGET_BYTES + BUDGET_BYTES / 2) this.evictNewest();
  }

  /** Drops whole symbols, newest first, until the rows held are within the budget; then admits no more. */
  private evictNewest(): void {
    this.full = true;
    for (const bySymbol of [...this.markets.values()].reverse()) {
      for (const symbol of [...bySymbol.keys()].reverse()) {
        if (this.bytes <= BUDGET_BYTES) return;
        for (const row of bySymbol.get(symbol)!.values()) this.bytes -= rowBytes(row);
        bySymbol.delete(symbol);
      }
    }
  }

  /** Symbols read from the backend join what is held while the budget allows. */
  private admit(market: string, symbols: readonly string[], rows: readonly CatalogRow[]): void {
    if (this.full || this.bytes >= BUDGET_BYTES) return;
    let bySymbol = this.markets.get(market);
    if (!bySymbol) this.markets.set(market, (bySymbol = new Map()));
    const admitted = new Set<string>();
    for (const symbol of symbols) {
      if (bySymbol.has(symbol)) continue;
      bySymbol.set(symbol, new Map());
      admitted.add(symbol);
    }
    for (const row of rows) {
      if (!admitted.has(row.symbol)) continue;
      bySymbol.get(row.symbol)!.set(row.timeframe, row);
      this.bytes += rowBytes(row);
    }
  }
}

/** Catalog rows read from the backend for these symbols of a market (all their rows). */
interface LoadedSymbols {
  market: string;
  symbols: readonly string[];
  rows: readonly CatalogRow[];
}

/** One write's view of the cache: what it may use, and what it read and changed, applied once it has committed. */
export class CatalogWrite {
  private readonly loaded: LoadedSymbols[] = [];
  private readonly changes: StoreChanges[] = [];

  constructor(
    private readonly cache: CatalogCache,
    private readonly start: number,
  ) {}

  /** The rows of a symbol as the write's transaction sees them, or undefined when they must be read. */
  held(market: string, symbol: string): ReadonlyMap<Timeframe, CatalogRow> | undefined {
    return this.cache.held(this.start, market, symbol);
  }

  /** The write read every catalog row of `symbols`. */
  read(market: string, symbols: readonly string[], rows: readonly CatalogRow[]): void {
    this.loaded.push({ market, symbols, rows });
  }

  /** The write sent these changes to the backend. */
  wrote(changes: StoreChanges): void {
    // Only the catalog's part: the block bytes sent are not the cache's, and keeping them would
    // hold a whole write's bars in memory until it commits.
    this.changes.push({ deleteBlocks: [], putBlocks: [], deleteCatalog: changes.deleteCatalog, putCatalog: changes.putCatalog });
  }

  /** The write's transaction committed at `version`. */
  committed(version: number): void {
    this.cache.committed(this.start, version, this.loaded, this.changes);
  }
}
