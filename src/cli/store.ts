/** Where the commands find the database (embedded SQLite file or PostgreSQL URL), and opening it (seeded on first use when asked). */
import { resolve } from "node:path";
import { openStore as openByUrl, type Store } from "../data/open.js";
import { isPostgresUrl } from "../data/postgres.js";
import { DEFAULT_MARKETS } from "../types.js";
import { progressBar } from "./progress.js";

/** The store a command opens: the embedded SQLite file or a shared PostgreSQL database. */
export type CliStore = Store;

/**
 * The database: `--db FILE|postgres://…`, else `$XQL_DATABASE_URL` (a PostgreSQL URL),
 * else `$XQL_DB`, else `.xql/xql.db` under the current directory.
 */
export function databasePath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (isPostgresUrl(flag)) return flag;
  if (flag !== undefined && flag !== "") return resolve(flag);
  if (isPostgresUrl(env.XQL_DATABASE_URL)) return env.XQL_DATABASE_URL;
  if (env.XQL_DB) return resolve(env.XQL_DB);
  return resolve(".xql", "xql.db");
}

/** Opens (creating and migrating) the store at `file` or PostgreSQL URL, by {@link openByUrl}. */
export function openStore(file: string): Promise<CliStore> {
  return openByUrl(file);
}

/** Seeds the synthetic universe when the store holds no bars, telling the user on standard error. */
export async function seedOnFirstUse(store: CliStore): Promise<void> {
  if ((await store.barCount()) > 0) return;
  process.stderr.write(`xql: ${store.file} holds no bars; seeding the synthetic FOREX and CRYPTO universe (once)\n`);
  const progress = progressBar("Seeding");
  const started = Date.now();
  // Loaded here: only a first use needs the synthetic generator, not `keys` or `data import`.
  const { seedIfEmpty } = await import("../data/seed.js");
  const written = await seedIfEmpty(store, { onProgress: progress.update });
  progress.done();
  process.stderr.write(`xql: seeded ${written.toLocaleString("en-US")} bars in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

/** The markets queries may name: the defaults plus every market holding bars (e.g. from an import). */
export async function marketsOf(store: CliStore): Promise<string[]> {
  const markets = [...DEFAULT_MARKETS];
  for (const market of await store.markets()) {
    if (!markets.some((m) => m.toUpperCase() === market.toUpperCase())) markets.push(market);
  }
  return markets;
}

/** The Redis server for quota counters: `--redis redis://…`, else `$XQL_REDIS_URL`; none means the database keeps them. */
export function redisUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag !== undefined && flag !== "") return flag;
  return env.XQL_REDIS_URL || undefined;
}
