/**
 * Quota exact in every store (issue 11): invalid runs never hold a reservation, so 30 valid
 * runs sent with 270 invalid ones on a free account are all admitted, on Redis and on a
 * PostgreSQL-only deployment; and a Redis that stalls mid-run (SIGSTOP) charges nothing for
 * the runs that answered 500, once it wakes and executes what the client stopped waiting for.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { PostgresStore } from "../../src/open/postgres.js";
import { RedisQuotaStore } from "../../src/accounts/redis.js";
import { issueApiKey } from "../../src/accounts/keys.js";
import { FallbackKeyStore } from "../../src/accounts/key-fallback.js";
import type { QuotaUsage } from "../../src/accounts/accounts.js";
import { createServer } from "../../src/server/index.js";
import { rampBars, tempDir, until, needsServices } from "../kit/index.js";
import { NOW, TestClock, atMost } from "../server/helpers.js";
import { checkedFetch } from "../server/openapi-check.js";
import { DATABASE_URL, REDIS_URL, freshDatabase, freshPrefix, seedSmall } from "./helpers.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';
const INVALID = (i: number): string => `market = "FOREX"\ntimeframe = h1\nrsi(14) < ${i} and`;

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return `http://127.0.0.1:${address.port}`;
}

const post = (url: string, body: string, key: string) =>
  checkedFetch(`${url}/xql/run`, { method: "POST", body, headers: { authorization: `Bearer ${key}` } });
const used = async (url: string, key: string): Promise<number> =>
  ((await (await checkedFetch(`${url}/usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as { used: number }).used;

/**
 * 30 valid and 270 invalid runs, interleaved, 64 at a time (a client's connection pool, within
 * the account's admission of 4 in work and 100 waiting): every valid one must be admitted.
 */
async function burst(url: string, key: string): Promise<void> {
  const bodies = Array.from({ length: 300 }, (_, i) => (i % 10 === 3 ? QUERY : INVALID(i)));
  const responses = await atMost(64, bodies, (body) => post(url, body, key));
  responses.forEach((response, i) => {
    if (bodies[i] === QUERY) expect(response.status, `valid run ${i}`).toBe(200);
    else expect([400, 429], `invalid run ${i}`).toContain(response.status);
  });
  expect(responses.filter((r) => r.status === 200)).toHaveLength(30);
  expect((await post(url, QUERY, key)).status).toBe(429);
  expect(await used(url, key)).toBe(30);
}

needsServices("quota exactness with invalid runs beside valid ones", () => {
  let db: { url: string; drop: () => Promise<void> };
  let store: PostgresStore;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    store = await PostgresStore.open(db.url);
    await seedSmall(store);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("PostgreSQL deleteBars removes a symbol's bars from a time on, keeps the catalog and bumps the data version", async () => {
    const h1 = Date.UTC(2026, 10, 20, 12);
    await store.upsertBars([{ market: "TEST", timeframe: "h1", symbols: [{ symbol: "DELX", bars: rampBars("h1", 10, h1, 5) }] }]);
    const version = await store.dataVersion();
    expect(await store.deleteBars({ symbol: "DELX", from: h1 - 3 * 3_600_000 })).toBe(4);
    const series = await store.series("TEST");
    expect(series.find((s) => s.timeframe === "h1")).toMatchObject({ symbol: "DELX", bars: 6, lastTime: h1 - 4 * 3_600_000, derived: false });
    // The derived daily bar is rebuilt from the six h1 bars left (volumes 100..105).
    const [daily] = await store.latestBars({ market: "TEST", timeframe: "d", baseTimeframe: "d", series: ["volume"], count: 5 });
    expect(Array.from(daily!.bars.volume)).toEqual([100 + 101 + 102 + 103 + 104 + 105]);
    expect(await store.dataVersion()).toBe(version + 1);
    expect(await store.deleteBars({ symbol: "DELX", market: "OTHER" })).toBe(0);
    expect(await store.deleteBars({ symbol: "DELX", timeframe: "h1" })).toBe(6);
    expect(await store.series("TEST")).toEqual([]);
  });

  it("Redis quota: 30 valid + 270 invalid concurrent runs admit exactly the 30", async () => {
    const quota = await RedisQuotaStore.open(REDIS_URL!, { prefix: freshPrefix() });
    const clock = new TestClock(NOW);
    const app = createServer({ store, keys: new FallbackKeyStore(store), quota, clock });
    try {
      const url = await listen(app);
      const { key } = await issueApiKey(store, { tier: "free", now: clock.now() });
      await burst(url, key);
    } finally {
      await app.close();
      quota.close();
    }
  }, 60_000);

  it("PostgreSQL-only quota: 30 valid + 270 invalid concurrent runs admit exactly the 30", async () => {
    const clock = new TestClock(NOW);
    const app = createServer({ store, clock });
    try {
      const url = await listen(app);
      const { key } = await issueApiKey(store, { tier: "free", now: clock.now() });
      await burst(url, key);
    } finally {
      await app.close();
    }
  }, 60_000);
});

needsServices("Redis reservations by id", () => {
  it("count a reservation once, give it back once, and make a reservation that arrives after its release count nothing", async () => {
    const quota = await RedisQuotaStore.open(REDIS_URL!, { prefix: freshPrefix() });
    try {
      const day = "2026-11-20";
      expect(await quota.reserve("a", day, 30, "r1")).toEqual({ admitted: true, used: 1, remaining: 29 });
      // The same reservation sent again (a resent command) is not counted twice.
      expect(await quota.reserve("a", day, 30, "r1")).toMatchObject({ admitted: true, used: 1 });
      expect(await quota.release("a", day, 30, "r1")).toEqual({ used: 0, remaining: 30 });
      expect(await quota.release("a", day, 30, "r1")).toEqual({ used: 0, remaining: 30 });
      // Released before it arrived (its reply was lost and Redis ran the release first): a no-op.
      expect(await quota.reserve("a", day, 30, "r2")).toMatchObject({ used: 1 });
      expect(await quota.release("a", day, 30, "r3")).toEqual({ used: 1, remaining: 29 });
      expect(await quota.reserve("a", day, 30, "r3")).toEqual({ admitted: false, used: 1, remaining: 29 });
      expect(await quota.usage("a", day, 30)).toEqual({ used: 1, remaining: 29 });
    } finally {
      quota.close();
    }
  });
});

/** The real Redis quota store, which pauses its Redis server (SIGSTOP) right after the next usage read. */
class PausingQuota extends RedisQuotaStore {
  pauseNext = false;
  constructor(
    url: string,
    private readonly pid: number,
  ) {
    super(url, { prefix: freshPrefix() });
  }
  override async usage(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    const usage = await super.usage(accountId, day, limit);
    if (this.pauseNext) {
      this.pauseNext = false;
      process.kill(this.pid, "SIGSTOP");
    }
    return usage;
  }
}

needsServices("a Redis paused mid-run", () => {
  let redis: ChildProcess;
  let temp: { dir: string; cleanup: () => void };
  let db: { url: string; drop: () => Promise<void> };
  let store: PostgresStore;

  beforeAll(async () => {
    // A Redis of this test's own, on a unix socket, so pausing it disturbs no other suite.
    temp = tempDir();
    const socket = join(temp.dir, "redis.sock");
    redis = spawn("redis-server", ["--port", "0", "--unixsocket", socket, "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await until(async () => (await RedisQuotaStore.open(socket).then((q) => (q.close(), true))) === true, 10_000);
    db = await freshDatabase(DATABASE_URL!);
    store = await PostgresStore.open(db.url);
    await seedSmall(store);
  }, 60_000);
  afterAll(async () => {
    if (redis?.pid !== undefined) {
      process.kill(redis.pid, "SIGCONT");
      redis.kill("SIGKILL");
    }
    await store?.close();
    await db?.drop();
    temp?.cleanup();
  });

  it("charges nothing for the runs that answered 500, once Redis wakes, and answers each 500 within the command timeouts", async () => {
    const quota = new PausingQuota(join(temp.dir, "redis.sock"), redis.pid!);
    await quota.redis.connect();
    const clock = new TestClock(NOW);
    const app = createServer({ store, keys: new FallbackKeyStore(store), quota, clock });
    try {
      const url = await listen(app);
      const { key } = await issueApiKey(store, { tier: "free", now: clock.now() });
      expect((await post(url, QUERY, key)).status).toBe(200);
      for (let round = 0; round < 3; round++) {
        quota.pauseNext = true;
        const started = performance.now();
        // The usage read passes, then Redis stops: the reservation and its release both time out.
        const failed = await post(url, QUERY, key);
        const ms = performance.now() - started;
        expect(failed.status).toBe(500);
        expect(await failed.json()).toEqual({ error: "Data store unavailable" });
        // Answered while Redis stands paused (it is woken only below): the command timeouts ended both waits.
        console.log(`paused Redis: run answered 500 in ${ms.toFixed(0)} ms (reservation and release, 1 s each at most)`);
        // The 500 was answered while Redis stood paused: the reservation and its release are both
        // sent and waiting in its socket. Woken, Redis runs them in that order.
        process.kill(redis.pid!, "SIGCONT");
        await until(async () => (await quota.redis.ping()) === "PONG", 10_000);
        expect(await used(url, key), `round ${round}`).toBe(1);
      }
      expect((await post(url, QUERY, key)).status).toBe(200);
      expect(await used(url, key)).toBe(2);
    } finally {
      await app.close();
      quota.close();
    }
  }, 90_000);
});
