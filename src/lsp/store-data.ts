/**
 * What `xql lsp` completes and checks from the store the other commands open (`--db`,
 * `$XQL_DATABASE_URL`, `$XQL_DB`, the per-user file): the symbols of a market inside `symbols =
 * [...]`, the store's saved lists inside `watchlist = "..."`, and the markets it holds beyond
 * FOREX and CRYPTO (a query on an imported market is not flagged) — what `xql run` on that store
 * would screen.
 *
 * An editor starts the server for every `.xql` file, so the store is opened only when a
 * completion first needs it or a query names a market the server does not know, and never
 * changed: an SQLite file is opened read-only (not
 * created where none is, not migrated), and one replaced under the server (a new seed) is
 * opened again. A market's symbols, and the markets, are kept while the store's data version
 * stays the same (one small read per completion tells); the lists are read on each completion that offers them
 * (at most 50 names).
 */
import { existsSync } from "node:fs";
import type { Store } from "../open/open.js";
import type { CompletionHost } from "./server.js";

/** How long a completion waits for PostgreSQL at most: an editor's request, not a batch job. */
const POSTGRES_WAIT_MS = 2_000;

export class StoreData implements CompletionHost {
  private opened: Promise<Store> | undefined;
  /** The SQLite file's identity when it was opened (device and inode). */
  private identity: string | undefined;
  private readonly symbolLists = new Map<string, { version: number; symbols: readonly string[] }>();
  /** The store's markets, kept while its data version stays the same. */
  private marketList: { version: number; markets: readonly string[] } | undefined;

  /** `url`: the store as `databasePath` resolves it (a file path or a PostgreSQL URL). */
  constructor(private readonly url: string) {}

  async symbols(market: string): Promise<readonly string[]> {
    const store = await this.store();
    if (!store) return [];
    const version = await store.dataVersion();
    const held = this.symbolLists.get(market);
    if (held?.version === version) return held.symbols;
    const symbols = await store.symbols(market);
    this.symbolLists.set(market, { version, symbols });
    return symbols;
  }

  async markets(): Promise<readonly string[]> {
    const store = await this.store();
    if (!store) return [];
    const version = await store.dataVersion();
    if (this.marketList?.version !== version) this.marketList = { version, markets: await store.markets() };
    return this.marketList.markets;
  }

  async watchlists(): Promise<readonly string[]> {
    const store = await this.store();
    if (!store) return [];
    const { LOCAL_ACCOUNT } = await import("../accounts/watchlists.js");
    return (await store.listWatchlists(LOCAL_ACCOUNT)).map((w) => w.name);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    this.symbolLists.clear();
    this.marketList = undefined;
    await (await opened?.catch(() => undefined))?.close();
  }

  /**
   * The open store; undefined while the SQLite file does not exist. A failed open is not kept:
   * the next completion tries again (the database may be up by then).
   */
  private async store(): Promise<Store | undefined> {
    const { isPostgresUrl, openStore } = await import("../open/open.js");
    if (!isPostgresUrl(this.url)) {
      const { identityOf } = await import("../store/sqlite-database.js");
      const identity = existsSync(this.url) ? identityOf(this.url) : undefined;
      if (identity !== this.identity) {
        await this.close();
        this.identity = identity;
      }
      if (identity === undefined) return undefined;
    }
    this.opened ??= openStore(this.url, {
      sqlite: { readonly: true },
      postgres: { max: 1, connectionTimeoutMillis: POSTGRES_WAIT_MS, queryTimeoutMillis: POSTGRES_WAIT_MS, requestTimeoutMillis: POSTGRES_WAIT_MS },
    });
    try {
      return await this.opened;
    } catch (error) {
      this.opened = undefined;
      this.identity = undefined;
      throw error;
    }
  }
}
