/** Where the commands find the database (embedded SQLite file or PostgreSQL URL), and opening it (seeded on first use when asked). */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { isPostgresUrl, openStore as openByUrl, type Store } from "../open/open.js";
import { withDefaultMarkets } from "../types.js";
import { CliError, type CliOutput } from "./command.js";
import { progressBar } from "./progress.js";
import { messageOf } from "../errors.js";

/** The store a command opens: the embedded SQLite file or a shared PostgreSQL database. */
export type CliStore = Store;

/**
 * The per-user database file: `$XDG_DATA_HOME/xql/xql.db`, else `~/.local/share/xql/xql.db`.
 * One file for the user, whatever the current directory, so `xql run` in another directory
 * finds the same bars and keys instead of seeding a second copy there.
 */
export function defaultDatabaseFile(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG base directory spec: a relative XDG_DATA_HOME is invalid and ignored.
  const dataHome = env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : join(env.HOME || homedir(), ".local", "share");
  return join(dataHome, "xql", "xql.db");
}

/**
 * The database: `--db FILE|postgres://…`, else `$XQL_DATABASE_URL` (a PostgreSQL URL),
 * else `$XQL_DB`, else {@link defaultDatabaseFile}. Relative paths resolve against `cwd`.
 */
export function databasePath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (isPostgresUrl(flag)) return flag;
  if (flag !== undefined && flag !== "") return resolve(cwd, flag);
  if (isPostgresUrl(env.XQL_DATABASE_URL)) return env.XQL_DATABASE_URL;
  if (env.XQL_DB) return resolve(cwd, env.XQL_DB);
  return defaultDatabaseFile(env);
}

/**
 * Opens (creating and migrating) the store at `file`; a PostgreSQL URL connects and migrates
 * on first use. With `stderr`, a SQLite file that did not exist yet is named there once, so
 * nobody wonders where 100 MB of bars went.
 */
export async function openStore(file: string, stderr?: CliOutput): Promise<CliStore> {
  const created = !isPostgresUrl(file) && !existsSync(file);
  try {
    const store = await openByUrl(file);
    if (created) stderr?.write(`xql: created the database ${file}\n`);
    return store;
  } catch (error) {
    throw new CliError(messageOf(error));
  }
}

/**
 * A store opened by a command that writes into it, such as `data import`: a SQLite file that
 * did not exist yet is kept (and named on standard error) only when the command wrote into it,
 * so a failed first import leaves no empty database behind to be mistaken for a real one.
 */
export interface StoreForWriting {
  readonly store: CliStore;
  /** Closes the store; `wrote` false removes the file (and its journal) when this command created it. */
  finish(wrote: boolean): Promise<void>;
}

export async function openStoreForWriting(file: string, stderr: CliOutput): Promise<StoreForWriting> {
  const created = !isPostgresUrl(file) && !existsSync(file);
  const store = await openStore(file);
  return {
    store,
    async finish(wrote) {
      await store.close();
      if (!created) return;
      if (wrote) stderr.write(`xql: created the database ${file}\n`);
      else await Promise.all(["", "-wal", "-shm", "-journal"].map((suffix) => rm(file + suffix, { force: true })));
    },
  };
}

/** Seeds the synthetic universe when the store holds no bars, telling the user on standard error. */
export async function seedOnFirstUse(store: CliStore, stderr: CliOutput = process.stderr): Promise<void> {
  if ((await store.barCount()) > 0) return;
  stderr.write(`xql: ${store.file} holds no bars; seeding the synthetic FOREX and CRYPTO universe (once)\n`);
  const progress = progressBar("Seeding", stderr);
  const started = Date.now();
  // Loaded here: only a first use needs the synthetic generator, not `keys` or `data import`.
  const { seedIfEmpty } = await import("../synthetic/seed.js");
  const written = await seedIfEmpty(store, { onProgress: progress.update });
  progress.done();
  stderr.write(`xql: seeded ${written.toLocaleString("en-US")} bars in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

/** The markets queries may name: the defaults plus every market holding bars (e.g. from an import). */
export async function marketsOf(store: CliStore): Promise<string[]> {
  return withDefaultMarkets(await store.markets());
}

/** The Redis server for quota counters: `--redis redis://…`, else `$XQL_REDIS_URL`; none means the database keeps them. */
export function redisUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flag !== undefined && flag !== "") return flag;
  return env.XQL_REDIS_URL || undefined;
}
