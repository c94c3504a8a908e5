/**
 * `openStore(url)`: one entry point to the stores, picking the backend by URL, so the CLI,
 * the server and embedders never name a concrete class. A path or a `file:` URL opens (and
 * creates and migrates) an SQLite file; `postgres://` or `postgresql://` connects to
 * PostgreSQL and migrates before resolving. `close()` is async on both; every caller awaits it.
 */
import { fileURLToPath } from "node:url";
import type { PostgresStoreOptions } from "./postgres.js";
import type { SqliteStoreOptions } from "./sqlite.js";
import type { BarStore, KeyStore, QuotaStore } from "./store.js";

/** A store of bars, keys and quota counters, whatever the backend. */
export interface Store extends BarStore, KeyStore, QuotaStore {
  /** Which backend serves the store: the embedded file, or a database shared by replicas. */
  readonly backend: "sqlite" | "postgres";
  /** Where the store lives, for messages (a PostgreSQL URL without its password). */
  readonly file: string;
}

/** Options of {@link openStore}, passed to the backend the URL picks. */
export interface OpenStoreOptions {
  /** SQLite options (busy timeout, read-only). */
  sqlite?: SqliteStoreOptions;
  /** PostgreSQL pool options. */
  postgres?: PostgresStoreOptions;
}

/**
 * Opens the store at `url`: a file path, `:memory:` or `file:` URL → SQLite; `postgres://…` → PostgreSQL.
 *
 * @throws Error naming the location when the file cannot be opened or the database cannot be reached.
 * @example
 * ```ts
 * const store = await openStore("./xql.db");
 * try { console.log(await store.barCount()); } finally { await store.close(); }
 * ```
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      // Loaded on demand: an embedder on SQLite never loads the PostgreSQL driver, and back.
      const { PostgresStore } = await import("./postgres.js");
      return await PostgresStore.open(url, options.postgres);
    } catch (error) {
      throw new Error(`Cannot open the database ${redacted(url)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const file = url.startsWith("file:") ? fileURLToPath(url) : url;
  const { SqliteStore } = await import("./sqlite.js");
  try {
    return new SqliteStore(file, options.sqlite);
  } catch (error) {
    throw new Error(`Cannot open the database ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function redacted(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
