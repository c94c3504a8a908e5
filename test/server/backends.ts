/**
 * The service over each backend the CLI can give it, for suites that hold every backend to the
 * same behaviour: SQLite (one file: bars, keys and quota) always; PostgreSQL (bars, keys and
 * quota in one database) when XQL_TEST_DATABASE_URL is set; PostgreSQL with the quota in Redis
 * (what `xql serve --redis` runs, replicas sharing both) when XQL_TEST_REDIS_URL is set too.
 * Where a backend is missing its suite is skipped with the reason in its title.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import type { KeyStore, QuotaStore, Tier } from "../../src/accounts/accounts.js";
import { FallbackKeyStore } from "../../src/accounts/key-fallback.js";
import { RedisQuotaStore } from "../../src/accounts/redis.js";
import { createServer, type ServerOptions } from "../../src/server/index.js";
import { PostgresStore } from "../../src/open/postgres.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { join } from "node:path";
import { DATABASE_URL, REDIS_URL, TestClock, WITHOUT_POSTGRES, WITHOUT_SERVICES, describeUnless, tempDir } from "../kit/index.js";
import { freshDatabase, freshPrefix } from "../scale/helpers.js";
import { NOW, listenOnLoopback, seedSmallUniverse } from "./helpers.js";

/** A server on loopback over one backend, seeded with the small universe. */
export interface Served {
  url: string;
  app: FastifyInstance;
  clock: TestClock;
  keys: KeyStore;
  quota: QuotaStore;
  key(tier?: Tier, accountId?: string): Promise<{ key: string; accountId: string }>;
  post(path: string, body: string | Uint8Array | undefined, key?: string, headers?: Record<string, string>): Promise<Response>;
  get(path: string, key?: string): Promise<Response>;
  /** Stops this server and starts another over the same stores (a restart of the service). */
  restart(): Promise<Served>;
  stop(): Promise<void>;
}

export interface Backend {
  name: string;
  /** Why this backend cannot run here, or undefined. */
  missing: string | undefined;
  /** Starts a server; `clock` defaults to a {@link TestClock} at {@link NOW}. */
  start(options?: Partial<ServerOptions> & { clock?: TestClock }): Promise<Served>;
}

/** Registers `body` once per backend, as the suite `${name} on ${backend}`. */
export function forEachBackend(name: string, body: (backend: Backend) => void): void {
  for (const make of [sqlite, postgres, postgresWithRedis]) {
    const backend = make();
    describeUnless(backend.missing, `${name} on ${backend.name}`, () => {
      beforeAll(() => backend.prepare());
      afterAll(() => backend.cleanup());
      body(backend);
    });
  }
}

interface Prepared extends Backend {
  /** Once per suite, before its first server. */
  prepare(): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * The {@link Served} face of an app, listening: `close` closes it and its stores, `reopen` starts
 * another over the same stores, `dispose` removes what the backend made for it (a folder).
 */
async function served(
  app: FastifyInstance,
  clock: TestClock,
  stores: { keys: KeyStore; quota: QuotaStore },
  close: () => Promise<void>,
  reopen: () => Promise<Served>,
  dispose: () => void = () => undefined,
): Promise<Served> {
  const { keys, quota } = stores;
  const client = await listenOnLoopback(app, keys, clock);
  return {
    ...client,
    app,
    clock,
    keys,
    quota,
    async stop() {
      await close();
      dispose();
    },
    async restart() {
      await close();
      return reopen();
    },
  };
}

function sqlite(): Prepared {
  return {
    name: "SQLite",
    missing: undefined,
    prepare: async () => undefined,
    cleanup: async () => undefined,
    async start(options = {}) {
      const clock = options.clock ?? new TestClock(NOW);
      const temp = tempDir();
      const file = join(temp.dir, "xql.db");
      const open = async (): Promise<Served> => {
        const store = new SqliteStore(file);
        if ((await store.barCount()) === 0) await seedSmallUniverse(store);
        const app = createServer({ ...options, store, clock });
        const close = async (): Promise<void> => {
          await app.close();
          await store.close();
        };
        return served(app, clock, { keys: store, quota: store }, close, open, temp.cleanup);
      };
      return open();
    },
  };
}

/** One seeded database for the suite; every server gets its own accounts (and quota prefix). */
function postgresBackend(name: string, missing: string | undefined, withRedis: boolean): Prepared {
  let database: { url: string; drop: () => Promise<void> } | undefined;
  return {
    name,
    missing,
    async prepare() {
      database = await freshDatabase(DATABASE_URL!);
      const store = await PostgresStore.open(database.url);
      try {
        await seedSmallUniverse(store);
      } finally {
        await store.close();
      }
    },
    async cleanup() {
      await database?.drop();
    },
    async start(options = {}) {
      const clock = options.clock ?? new TestClock(NOW);
      const prefix = freshPrefix();
      const open = async (): Promise<Served> => {
        const store = await PostgresStore.open(database!.url, { connectionTimeoutMillis: 2000 });
        const redis = withRedis ? await RedisQuotaStore.open(REDIS_URL!, { prefix }) : undefined;
        const keys = redis ? new FallbackKeyStore(store) : store;
        const quota = redis ?? store;
        const app = createServer({ ...options, store, keys, quota, clock });
        const close = async (): Promise<void> => {
          await app.close();
          redis?.close();
          await store.close();
        };
        return served(app, clock, { keys, quota }, close, open);
      };
      return open();
    },
  };
}

function postgres(): Prepared {
  return postgresBackend("PostgreSQL", WITHOUT_POSTGRES, false);
}

function postgresWithRedis(): Prepared {
  return postgresBackend("PostgreSQL with the quota in Redis", WITHOUT_SERVICES, true);
}
