/**
 * `openStore(url)`: one entry point to the stores, picking the backend by URL, so the CLI,
 * the server and embedders never name a concrete class. The composition root: the only place
 * (with its `sqlite.ts` and `postgres.ts`) that puts the bars, the accounts, the watchlists and
 * the alerts together, each room on the one connection or pool, with the schema of all. A path or a `file:` URL opens (and
 * creates and migrates) an SQLite file; `postgres://` or `postgresql://` connects to
 * PostgreSQL and migrates before resolving. `close()` is async on both; every caller awaits it.
 */
import type { WatchlistStore } from "../accounts/watchlists.js";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { redactUrl } from "../redact.js";
import type { PostgresStoreOptions } from "../store/postgres.js";
import type { SqliteStoreOptions } from "../store/sqlite.js";
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import type { BarStore } from "../store/store.js";
import type { AlertStore } from "../alerts/alerts.js";
import { XqlDataError, messageOf } from "../errors.js";

/** A store of bars, keys and quota counters, whatever the backend. */
export interface Store extends BarStore, KeyStore, QuotaStore, WatchlistStore {
  /** Which backend serves the store: the embedded file, or a database shared by replicas. */
  readonly backend: "sqlite" | "postgres";
  /** Where the store lives, for messages (a PostgreSQL URL without its password). */
  readonly file: string;
  /** Alerts, their (alert, bar) claims and the outbox of their deliveries, beside the bars. */
  readonly alerts: AlertStore;
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
  if (POSTGRES_URL.test(url)) {
    try {
      // Loaded on demand: an embedder on SQLite never loads the PostgreSQL driver, and back.
      const { PostgresStore } = await import("./postgres.js");
      return await PostgresStore.open(url, options.postgres);
    } catch (error) {
      throw new XqlDataError("store-open", { database: redactUrl(url), reason: messageOf(error) });
    }
  }
  const file = url.startsWith("file:") ? fileURLToPath(url) : url;
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new XqlDataError("store-open", { database: file, reason: `it is a directory; give a file name such as ${join(file, "xql.db")}` });
  }
  const { SqliteStore } = await import("./sqlite.js");
  try {
    return new SqliteStore(file, options.sqlite);
  } catch (error) {
    throw new XqlDataError("store-open", { database: file, reason: openFailure(file, error) });
  }
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** True when the text names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(text: string | undefined): text is string {
  return text !== undefined && POSTGRES_URL.test(text);
}

/** Why an SQLite file could not be opened, in a user's words. */
function openFailure(file: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  return code === "EACCES" || code === "EPERM" ? `permission denied in ${dirname(file)}`
    : code === "ENOTDIR" || code === "EEXIST" ? `a part of ${dirname(file)} is a file, not a directory`
    : messageOf(error);
}
