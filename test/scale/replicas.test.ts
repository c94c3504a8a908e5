/**
 * Replicas sharing PostgreSQL and Redis meter exactly as one embedded server does, and the
 * same query over the same bars answers the same on both backends.
 */
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { PostgresStore } from "../../src/open/postgres.js";
import { seedBatches } from "../../src/synthetic/seed.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { BarStore } from "../../src/store/store.js";
import { barOpen, rampBars, needsServices } from "../kit/index.js";
import { NOW, TestClock } from "../server/helpers.js";
import { DATABASE_URL, REDIS_URL, ROOT, freshDatabase, freshPrefix, seedSmall, startReplica, type Replica } from "./helpers.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';

needsServices("two replicas sharing PostgreSQL and Redis", () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    const prefix = freshPrefix();
    const clock = new TestClock(NOW);
    a = await startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix, clock });
    b = await startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix, clock });
    await seedSmall(a.store);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
  });

  it("admit exactly 30 of 200 concurrent runs split between them on a free key", async () => {
    const { key } = await a.key("free");
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).post("/xql/run", QUERY, key).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(170);
    for (const replica of [a, b]) {
      expect(await (await replica.get("/usage", key)).json()).toMatchObject({ used: 30, remaining: 0 });
    }
  });

  it("share keys: a key issued through one authenticates on the other, and a revocation counts on both", async () => {
    const { key } = await a.key("plus");
    const run = await b.post("/xql/run", QUERY, key);
    expect(run.status).toBe(200);
    expect(run.headers.get("x-ratelimit-limit")).toBe("4500");
    const { hashApiKey } = await import("../../src/accounts/keys.js");
    await b.store.revokeKey(hashApiKey(key), NOW);
    expect((await a.post("/xql/validate", QUERY, key)).status).toBe(401);
    expect((await b.post("/xql/validate", QUERY, key)).status).toBe(401);
  });

  it("see each other's writes of bars: the data version moves and cached reads are dropped", async () => {
    const { key } = await a.key("essential");
    const before = await (await b.post("/xql/run", QUERY, key)).json();
    expect((before as { results: unknown }).results).toEqual([{ symbol: "EURUSD", columns: { close: 499 } }, { symbol: "USDJPY", columns: { close: 449 } }]);
    await a.store.upsertBars([
      { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "GBPUSD", bars: rampBars("h1", 400, barOpen("h1", NOW), 200) }] },
    ]);
    const after = await (await b.post("/xql/run", QUERY, key)).json();
    expect(after).toMatchObject({
      results: [
        { symbol: "GBPUSD", columns: { close: 599 } },
        { symbol: "EURUSD", columns: { close: 499 } },
        { symbol: "USDJPY", columns: { close: 449 } },
      ],
      meta: { instruments: 3, matched: 3 },
    });
  });
});

needsServices("the same query over the same bars on SQLite and PostgreSQL", () => {
  const END = Date.UTC(2026, 10, 20, 13, 25);
  let db: { url: string; drop: () => Promise<void> };
  let postgres: PostgresStore;
  let sqlite: SqliteStore;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    postgres = await PostgresStore.open(db.url);
    sqlite = new SqliteStore(":memory:");
    const batches = seedBatches({ bars: 360, end: END });
    expect((await postgres.upsertBars(batches)).written).toBe((await sqlite.upsertBars(batches)).written);
    // Seeding 760k bars into both (rows, then packed blocks) takes 15-45 s on a loaded 2-core machine.
  }, 180_000);
  afterAll(async () => {
    await postgres?.close();
    sqlite?.close();
    await db?.drop();
  });

  const examples = readdirSync(resolve(ROOT, "examples")).filter((f) => f.endsWith(".xql"));
  const queries: [string, string][] = [
    ...examples.map((f): [string, string] => [f, readFileSync(resolve(ROOT, "examples", f), "utf8")]),
    ["every FOREX h1 close", 'market = "FOREX"\ntimeframe = h1\ncolumns = [open, high, low, close, volume]\nclose > 0'],
    ["weekly over daily", 'market = "FOREX"\ntimeframe = d\ncolumns = [close, w::close, w::sma(10)]\nclose > w::sma(10)'],
  ];

  it.each(queries)("%s", async (_name, text) => {
    const compiled = compile(text);
    const run = async (store: BarStore) => compiled.run(await fetchUniverse(store, compiled.plan));
    const [fromSqlite, fromPostgres] = await Promise.all([run(sqlite), run(postgres)]);
    expect(fromPostgres).toEqual(fromSqlite);
  });

  it("returns identical bars for every source shape", async () => {
    for (const request of [
      { market: "CRYPTO", timeframe: "h1", baseTimeframe: "h1", series: ["close", "volume"], count: 300 },
      { market: "CRYPTO", timeframe: "h4", baseTimeframe: "h1", series: ["high"], count: 50 },
      { market: "FOREX", timeframe: "w", baseTimeframe: "d", series: ["open", "low"], count: 400 },
      { market: "NOPE", timeframe: "h1", baseTimeframe: "h1", series: ["close"], count: 10 },
    ] as const) {
      const [x, y] = await Promise.all([sqlite.latestBars(request), postgres.latestBars(request)]);
      expect(y).toEqual(x);
    }
    expect(await postgres.series()).toEqual(await sqlite.series());
    expect(await postgres.markets()).toEqual(await sqlite.markets());
    expect(await postgres.barCount()).toBe(await sqlite.barCount());
  });
});
