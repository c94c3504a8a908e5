/**
 * Fair use held against PostgreSQL + Redis (issue 24): history priced by its window and
 * bounded to 16 MiB with the Redis reservation given back, a failed evaluation given back, and
 * GET /xql/bars reading one series from PostgreSQL.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { LatestBarsRequest } from "../../src/store/store.js";
import { PostgresStore } from "../../src/open/postgres.js";
import type { ServerOptions } from "../../src/server/index.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { NOW, TestClock, corruptBars } from "../server/helpers.js";
import { DATABASE_URL, REDIS_URL, freshDatabase, freshPrefix, startReplica, type Replica } from "./helpers.js";
import { needsServices } from "../kit/index.js";

const HEAD = 'market = "CRYPTO"\ntimeframe = h1\n';
const SERIES_8 = `${HEAD}columns = [open, high, low, close, volume, hl2, hlc3, ohlc4]\ntrue`;

needsServices("fair use on PostgreSQL + Redis", () => {
  let db: { url: string; drop: () => Promise<void> };
  let server: Replica | undefined;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    const store = await PostgresStore.open(db.url);
    const universe = syntheticUniverse({ market: "CRYPTO", symbols: 120, timeframes: ["h1"], bars: 1100 });
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: universe.map((i) => ({ symbol: i.symbol, bars: i.bars.h1! })) }]);
    await store.close();
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const start = (options: Omit<Partial<ServerOptions>, "clock"> = {}): Promise<Replica> =>
    startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix: freshPrefix(), clock: new TestClock(NOW), ...options });
  const used = async (s: Replica, key: string): Promise<number> => ((await (await s.get("/usage", key)).json()) as { used: number }).used;

  it("refuses a history priced above the budget, and one whose answer would pass 16 MiB, giving the Redis reservation back", async () => {
    server = await start();
    const { key } = await server.key("free");
    // 50 emas over 1,000 bars: the passes' work is above the budget (decisions §5).
    const costly = await server.post("/xql/history?bars=1000", `${HEAD}columns = [${Array.from({ length: 50 }, (_, i) => `ema(close, ${i + 2})`).join(", ")}]\ntrue`, key);
    expect(costly.status).toBe(400);
    expect(((await costly.json()) as { error: { message: string } }).error.message).toMatch(/^History too costly to run: its cost is [\d,]+ bar-steps per instrument for a window of 1,000 bars/);
    const large = await server.post("/xql/history?bars=1000", SERIES_8, key);
    expect(large.status).toBe(400);
    expect(((await large.json()) as { error: { message: string } }).error.message).toMatch(/^Response too large/);
    expect(large.headers.get("x-ratelimit-remaining")).toBe("30");
    expect(await used(server, key)).toBe(0);
    expect((await server.post("/xql/history?bars=50", SERIES_8, key)).status).toBe(200);
    expect(await used(server, key)).toBe(1);
  }, 60_000);

  it("gives the reservation back when the evaluation fails", async () => {
    const store = await PostgresStore.open(db.url);
    try {
      server = await start({ bars: corruptBars(store), cache: false });
      const { key } = await server.key("free");
      const response = await server.post("/xql/run", `${HEAD}close > 0`, key);
      expect(response.status).toBe(500);
      expect(await used(server, key)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("reads the one series GET /xql/bars asks for", async () => {
    const store = await PostgresStore.open(db.url);
    const reads: LatestBarsRequest[] = [];
    const counting = new Proxy(store, {
      get(target, name, receiver) {
        if (name === "latestBars") return (request: LatestBarsRequest) => (reads.push(request), target.latestBars(request));
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      server = await start({ bars: counting });
      const { key } = await server.key("free");
      const symbol = (await store.symbols("CRYPTO"))[7]!;
      const response = await server.get(`/xql/bars?market=CRYPTO&symbol=${symbol}&timeframe=h1&bars=1100`, key);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { symbol: string; bars: { time: number[] } };
      expect(body.symbol).toBe(symbol);
      expect(body.bars.time).toHaveLength(1100);
      expect(reads.map((r) => r.symbols)).toEqual([[symbol]]);
    } finally {
      await store.close();
    }
  });
});
