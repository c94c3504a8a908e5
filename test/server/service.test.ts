/**
 * How `createServer` resolves its stores (`src/server/service.ts`): the accounts are a handle of
 * their own (the store's `accounts`), never reached through the bar store; watchlists come with
 * the accounts even when the keys are wrapped, as `xql serve` wraps them on PostgreSQL.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FallbackKeyStore } from "../../src/accounts/key-fallback.js";
import type { ServerOptions } from "../../src/server/index.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";
import { type Running, seedSmallUniverse, startServer } from "./helpers.js";
import { checkedFetch } from "./openapi-check.js";

const RUN = 'market = "FOREX"\ntimeframe = h1\nclose > 0';

/** Account methods the bar store still forwards to its accounts; the server must not need them. */
const FORWARDED = ["createAccount", "findAccount", "createKey", "findKeyByHash", "revokeKey", "listKeys", "reserve", "release", "usage"];

/** The real SQLite store, seen without its account forwarders: bars, health and `accounts` only. */
function withoutForwarders(store: SqliteStore): SqliteStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (typeof name === "string" && FORWARDED.includes(name)) return undefined;
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A server over a seeded SQLite file, with the stores `options(store)` names built on that file's own store. */
async function serveOver(options: (store: SqliteStore) => Partial<ServerOptions>): Promise<Running> {
  const temp = tempDir();
  const file = join(temp.dir, "xql.db");
  const store = new SqliteStore(file);
  await seedSmallUniverse(store);
  const running = await startServer({ file, dir: temp.dir, seed: false, ...options(store) });
  cleanup = async () => {
    await running.stop();
    await store.close();
    temp.cleanup();
  };
  return running;
}

describe("the service's stores", () => {
  it("authenticates, meters and reports usage through the store's accounts handle, not through the bar store", async () => {
    const server = await serveOver((store) => ({ store: withoutForwarders(store) }));
    const { key } = await server.key("free");
    expect((await server.post("/xql/run", RUN, key)).status).toBe(200);
    expect((await server.post("/xql/run", RUN, key)).headers.get("x-ratelimit-remaining")).toBe("28");
    expect(await (await server.get("/usage", key)).json()).toMatchObject({ tier: "free", used: 2, remaining: 28 });
    expect(await (await server.get("/health")).json()).toMatchObject({ status: "ok", checks: { bars: "ok", keys: "ok", quota: "ok" } });
  });

  it("serves the accounts' watchlists when the keys are wrapped in a fallback cache, as `xql serve` does on PostgreSQL", async () => {
    const server = await serveOver((store) => ({ keys: new FallbackKeyStore(store) }));
    const { key } = await server.key("free");
    const put = await checkedFetch(`${server.url}/xql/watchlists/majors`, {
      method: "PUT",
      body: JSON.stringify({ symbols: ["EURUSD"] }),
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
    expect(put.status).toBe(201);
    const run = await server.post("/xql/run", RUN.replace("timeframe = h1", 'timeframe = h1\nwatchlist = "majors"'), key);
    expect(run.status).toBe(200);
    expect(((await run.json()) as { results: { symbol: string }[] }).results.map((r) => r.symbol)).toEqual(["EURUSD"]);
  });
});
