/** A real server on loopback over a real SQLite file, with a clock the test can move. */
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { createServer, type ServerOptions } from "../../src/server/index.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import type { KeyStore, Tier } from "../../src/accounts/accounts.js";
import type { BarStore, LatestBarsRequest, SymbolBars } from "../../src/store/store.js";
import { TestClock, barOpen, rampBars, tempDir } from "../kit/index.js";
import { checkedFetch } from "./openapi-check.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";

/** 2026-11-20 13:25 UTC: a Friday afternoon. */
export const NOW = Date.UTC(2026, 10, 20, 13, 25);

export { TestClock };

/**
 * FOREX: EURUSD closes 100..499 on h1 (latest 499), GBPUSD 1..400, USDJPY 50..449, each with
 * 400 daily bars; CRYPTO: BTCUSDT on h1 only.
 */
export async function seedSmallUniverse(store: BarStore, now = NOW): Promise<void> {
  const h1 = barOpen("h1", now);
  const d = barOpen("d", now);
  await store.upsertBars([
    {
      market: "FOREX",
      timeframe: "h1",
      symbols: [
        { symbol: "EURUSD", bars: rampBars("h1", 400, h1, 100) },
        { symbol: "GBPUSD", bars: rampBars("h1", 400, h1, 1) },
        { symbol: "USDJPY", bars: rampBars("h1", 400, h1, 50) },
      ],
    },
    {
      market: "FOREX",
      timeframe: "d",
      symbols: ["EURUSD", "GBPUSD", "USDJPY"].map((symbol) => ({ symbol, bars: rampBars("d", 400, d, 10) })),
    },
    { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "BTCUSDT", bars: rampBars("h1", 400, h1, 1000) }] },
  ]);
}

export interface Running {
  url: string;
  app: FastifyInstance;
  store: SqliteStore;
  file: string;
  dir: string;
  clock: TestClock;
  key(tier?: Tier, accountId?: string): Promise<{ key: string; accountId: string }>;
  post(path: string, body: string | Uint8Array | undefined, key?: string, headers?: Record<string, string>): Promise<Response>;
  get(path: string, key?: string): Promise<Response>;
  stop(): Promise<void>;
}

/** What a test asks of a listening service: its address, keys issued in its key store, and requests. */
export type LoopbackClient = Pick<Running, "url" | "key" | "post" | "get">;

/**
 * Listens with `app` on 127.0.0.1 and a free port, and the client a test talks to it with: keys
 * issued in `keys` at the clock's time, POSTs and GETs with the key as a Bearer token (every
 * answer checked against the OpenAPI document).
 */
export async function listenOnLoopback(app: FastifyInstance, keys: KeyStore, clock: { now(): number }): Promise<LoopbackClient> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const url = `http://127.0.0.1:${address.port}`;
  const auth = (key?: string): Record<string, string> => (key === undefined ? {} : { authorization: `Bearer ${key}` });
  return {
    url,
    async key(tier: Tier = "free", accountId?: string) {
      const issued = await issueApiKey(keys, { tier: accountId ? undefined : tier, accountId, now: clock.now() });
      return { key: issued.key, accountId: issued.record.accountId };
    },
    post: (path, body, key, headers = {}) => checkedFetch(url + path, { method: "POST", body, headers: { ...auth(key), ...headers } }),
    get: (path, key) => checkedFetch(url + path, { headers: auth(key) }),
  };
}

/** Starts a server on 127.0.0.1 and a free port, over a fresh (or the given) database file. */
export async function startServer(
  options: Partial<ServerOptions> & { file?: string; dir?: string; seed?: boolean } = {},
): Promise<Running> {
  const temp = options.dir === undefined ? tempDir() : undefined;
  const dir = options.dir ?? temp!.dir;
  const file = options.file ?? join(dir, "xql.db");
  const store = new SqliteStore(file);
  if (options.seed !== false && (await store.barCount()) === 0) await seedSmallUniverse(store);
  const clock = options.clock instanceof TestClock ? options.clock : new TestClock(NOW);
  const app = createServer({ store, clock, ...options });
  const client = await listenOnLoopback(app, store, clock);
  return {
    ...client,
    app,
    store,
    file,
    dir,
    clock,
    async stop() {
      await app.close();
      await store.close();
      temp?.cleanup();
    },
  };
}

/** Writes a SQLite file of `symbols` CRYPTO symbols × `bars` synthetic h1 bars (a market to load a service with). */
export async function writeCryptoMarket(file: string, symbols: number, bars: number): Promise<void> {
  const store = new SqliteStore(file);
  try {
    const universe = syntheticUniverse({ market: "CRYPTO", symbols, timeframes: ["h1"], bars });
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: universe.map((i) => ({ symbol: i.symbol, bars: i.bars.h1! })) }]);
  } finally {
    await store.close();
  }
}

/**
 * Runs `task` for every item with at most `width` running at once (a client's connection
 * pool), answers in the items' order. A burst wider than an account's admission (4 in work,
 * 100 waiting) would see 429s by design (decisions §2 "Fair use").
 */
export async function atMost<T, R>(width: number, items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/**
 * A bar store whose reads answer bars the evaluator cannot read (their close column throws when
 * it is reached): an evaluation that fails. Not times out of order: the evaluator trusts the
 * order of the store's bars and no longer checks it (src/eval/bars.ts, `trustBars`).
 */
export function corruptBars<S extends BarStore>(store: S): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === "latestBars") {
        return async (request: LatestBarsRequest): Promise<SymbolBars[]> =>
          (await target.latestBars(request)).map(({ symbol, bars }) => ({
            symbol,
            bars: Object.defineProperty({ ...bars }, "close", {
              get: (): never => {
                throw new Error(`corrupt close column of ${symbol}`);
              },
            }),
          }));
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
