/**
 * Scale-out tests run against real PostgreSQL and Redis servers: `scripts/services.sh start`
 * prints the XQL_TEST_DATABASE_URL and XQL_TEST_REDIS_URL to export. Without them the
 * suites are skipped with a message saying so.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll } from "vitest";
import { openStore, type Store } from "../../src/open/open.js";
import type { FastifyInstance } from "fastify";
import { createServer, type ServerOptions } from "../../src/server/index.js";
import { FallbackKeyStore } from "../../src/accounts/key-fallback.js";
import { PostgresStore } from "../../src/open/postgres.js";
import { RedisQuotaStore } from "../../src/accounts/redis.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import type { Tier } from "../../src/accounts/accounts.js";
import { TestClock } from "../server/helpers.js";
import { checkedFetch } from "../server/openapi-check.js";

export { DATABASE_URL, REDIS_URL } from "../kit/index.js";

export const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** Runs scripts/services.sh with extra environment; resolves to its standard output. */
export async function services(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run("bash", [resolve(ROOT, "scripts/services.sh"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return stdout;
}

/** The URL of a database on the same server as `url`. */
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A fresh, empty database on the server of `url` (dropped by the returned drop). */
export async function freshDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `xql_t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(url, name),
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Stores each on a fresh PostgreSQL database of `url`, for a suite (call it in the suite's body:
 * the databases are dropped after it), and a second connection to any of them (opened with the
 * URL and password the first was).
 */
export function freshPostgresStores(url: string): { open: () => Promise<Store>; reopen: (store: Store) => Promise<Store> } {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });
  const urls = new Map<Store, string>();
  return {
    async open() {
      const fresh = await freshDatabase(url);
      drops.push(fresh.drop);
      const store = await openStore(fresh.url);
      urls.set(store, fresh.url);
      return store;
    },
    reopen: (store) => openStore(urls.get(store)!),
  };
}

/** A key prefix no other test shares. */
export function freshPrefix(): string {
  return `xql:test:${randomBytes(6).toString("hex")}:`;
}

export interface Replica {
  url: string;
  app: FastifyInstance;
  store: PostgresStore;
  quota: RedisQuotaStore;
  clock: TestClock;
  key(tier?: Tier, accountId?: string): Promise<{ key: string; accountId: string }>;
  post(path: string, body: string | undefined, key?: string): Promise<Response>;
  get(path: string, key?: string): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * One `xql serve` replica as the CLI builds it: bars and keys in PostgreSQL (keys behind the
 * fallback), quota in Redis, on 127.0.0.1 and a free port.
 */
export async function startReplica(
  options: { databaseUrl: string; redisUrl: string; prefix: string; clock?: TestClock } & Partial<ServerOptions>,
): Promise<Replica> {
  const store = await PostgresStore.open(options.databaseUrl, { connectionTimeoutMillis: 2000 });
  const quota = await RedisQuotaStore.open(options.redisUrl, { prefix: options.prefix });
  const clock = options.clock ?? new TestClock(Date.now());
  const app = createServer({ store, keys: new FallbackKeyStore(store), quota, clock, ...options });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const url = `http://127.0.0.1:${address.port}`;
  const auth = (key?: string): Record<string, string> => (key === undefined ? {} : { authorization: `Bearer ${key}` });
  let stopped: Promise<void> | undefined;
  return {
    url,
    app,
    store,
    quota,
    clock,
    async key(tier: Tier = "free", accountId?: string) {
      const issued = await issueApiKey(store, { tier: accountId ? undefined : tier, accountId, now: clock.now() });
      return { key: issued.key, accountId: issued.record.accountId };
    },
    post: (path, body, key) => checkedFetch(url + path, { method: "POST", body, headers: auth(key) }),
    get: (path, key) => checkedFetch(url + path, { headers: auth(key) }),
    // Once: a test may stop a replica to settle its work, and its afterAll stops it again.
    stop() {
      stopped ??= (async () => {
        await app.close();
        quota.close();
        await store.close();
      })();
      return stopped;
    },
  };
}

export async function rateLimit(response: Response): Promise<{ limit: number; remaining: number; reset: number }> {
  return {
    limit: Number(response.headers.get("x-ratelimit-limit")),
    remaining: Number(response.headers.get("x-ratelimit-remaining")),
    reset: Number(response.headers.get("x-ratelimit-reset")),
  };
}


/** The same small universe as the SQLite server tests. */
export { seedSmallUniverse as seedSmall } from "../server/helpers.js";

