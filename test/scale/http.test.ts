/** The HTTP behaviour of test/server/http.test.ts, held against PostgreSQL and Redis. */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { NOW, TestClock } from "../server/helpers.js";
import { DATABASE_URL, REDIS_URL, freshDatabase, freshPrefix, rateLimit, seedSmall, startReplica, type Replica } from "./helpers.js";
import { needsServices } from "../kit/index.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';
const EXPECTED_RESULTS = [{ symbol: "EURUSD", columns: { close: 499 } }, { symbol: "USDJPY", columns: { close: 449 } }];
/** `meta` of a run over the small seeded universe (decisions §2): its latest h1 bar opens at 13:00 on NOW's day. */
const metaOf = (instruments: number, matched: number) => ({
  instruments,
  matched,
  skipped: { shortHistory: 0, noData: 0 },
  asOf: new Date(Math.floor(NOW / 3_600_000) * 3_600_000).toISOString(),
  // `close > …` has no recursion: exact on any number of bars.
  unconverged: 0,
});
const SYNTAX_ERROR = 'market = "FOREX"\ntimeframe = h1\nrsi(14 < 30';
const PLAN_ERROR = 'market = "FOREX"\ntimeframe = h1\nsma(400) > 0';
const NEXT_MIDNIGHT = Date.UTC(2026, 10, 21);

needsServices("HTTP on PostgreSQL + Redis", () => {
  let db: { url: string; drop: () => Promise<void> };
  let server: Replica | undefined;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    const seeding = await startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix: freshPrefix() });
    await seedSmall(seeding.store);
    await seeding.stop();
  });
  afterAll(async () => {
    await db?.drop();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const start = (prefix = freshPrefix()): Promise<Replica> =>
    startReplica({ databaseUrl: db.url, redisUrl: REDIS_URL!, prefix, clock: new TestClock(NOW) });

  it("validates and explains: 200 for a good query, 400 with the position or the plan error", async () => {
    server = await start();
    const { key } = await server.key("free");
    const ok = await server.post("/xql/validate", QUERY, key);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ valid: true });
    const syntax = await server.post("/xql/validate", SYNTAX_ERROR, key);
    expect(syntax.status).toBe(400);
    expect(((await syntax.json()) as { error: unknown }).error).toMatchObject({ type: "syntax", position: { line: 3 } });
    const plan = await server.post("/xql/validate", PLAN_ERROR, key);
    expect(plan.status).toBe(400);
    expect(((await plan.json()) as { error: { type: string } }).error.type).toBe("plan");
    const explained = await server.post("/xql/explain", QUERY, key);
    expect(explained.status).toBe(200);
    expect(Object.keys((await explained.json()) as object).sort()).toEqual(["explanation", "plan"]);
  });

  it("runs: 200 with the results and the rate-limit headers; an empty array when nothing matches", async () => {
    server = await start();
    const { key } = await server.key("essential");
    const response = await server.post("/xql/run", QUERY, key);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ results: EXPECTED_RESULTS, meta: metaOf(3, 2) });
    expect(await rateLimit(response)).toEqual({ limit: 1500, remaining: 1499, reset: NEXT_MIDNIGHT / 1000 });
    const none = await server.post("/xql/run", 'market = "FOREX"\ntimeframe = h1\nclose > 100000', key);
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ results: [], meta: metaOf(3, 0) });
  });

  it("gives the quota back on a 400", async () => {
    server = await start();
    const { key } = await server.key("free");
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    const response = await server.post("/xql/run", SYNTAX_ERROR, key);
    expect(response.status).toBe(400);
    expect(await rateLimit(response)).toEqual({ limit: 30, remaining: 29, reset: NEXT_MIDNIGHT / 1000 });
    expect(await (await server.get("/usage", key)).json()).toMatchObject({ used: 1, remaining: 29 });
  });

  it("answers 429 with Retry-After once the day's quota is used, while validate, explain and usage keep working", async () => {
    server = await start();
    const { key } = await server.key("free");
    for (let i = 0; i < 30; i++) expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    const refused = await server.post("/xql/run", QUERY, key);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Daily API rate limit exceeded" });
    expect(Number(refused.headers.get("retry-after"))).toBe((NEXT_MIDNIGHT - NOW) / 1000);
    expect(await rateLimit(refused)).toEqual({ limit: 30, remaining: 0, reset: NEXT_MIDNIGHT / 1000 });
    expect((await server.post("/xql/validate", QUERY, key)).status).toBe(200);
    expect((await server.post("/xql/explain", QUERY, key)).status).toBe(200);
    const usage = await server.get("/usage", key);
    expect(await usage.json()).toEqual({
      tier: "free",
      limit: 30,
      used: 30,
      remaining: 0,
      resetAt: new Date(NEXT_MIDNIGHT).toISOString(),
    });
  });

  it("admits exactly the remaining quota among 40 concurrent runs on a free key", async () => {
    server = await start();
    const { key } = await server.key("free");
    for (let i = 0; i < 5; i++) expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 40 }, () => server!.post("/xql/run", QUERY, key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it("resets the quota at UTC midnight", async () => {
    server = await start();
    const { key } = await server.key("free");
    for (let i = 0; i < 30; i++) await server.post("/xql/run", QUERY, key);
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(429);
    server.clock.t = NEXT_MIDNIGHT;
    const admitted = await server.post("/xql/run", QUERY, key);
    expect(admitted.status).toBe(200);
    expect(await rateLimit(admitted)).toEqual({ limit: 30, remaining: 29, reset: Date.UTC(2026, 10, 22) / 1000 });
  });

  it("counts quota per account: keys of one account share it, and revoking a key leaves it as it is", async () => {
    server = await start();
    const first = await server.key("free");
    const second = await server.key(undefined, first.accountId);
    for (let i = 0; i < 3; i++) await server.post("/xql/run", QUERY, first.key);
    expect(await (await server.get("/usage", second.key)).json()).toMatchObject({ used: 3, remaining: 27 });
    const { hashApiKey } = await import("../../src/accounts/keys.js");
    expect(await server.store.revokeKey(hashApiKey(first.key), NOW)).toBe(true);
    expect((await server.post("/xql/run", QUERY, first.key)).status).toBe(401);
    expect(await (await server.get("/usage", second.key)).json()).toMatchObject({ used: 3, remaining: 27 });
  });

  it("refuses missing, unknown and revoked keys with 401 and WWW-Authenticate", async () => {
    server = await start();
    const missing = await server.post("/xql/validate", QUERY);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe("Bearer");
    expect((await server.post("/xql/run", QUERY, `xql_${"A".repeat(32)}`)).status).toBe(401);
  });

  it("keeps quota state across a restart of the replica", async () => {
    const prefix = freshPrefix();
    const first = await start(prefix);
    const { key } = await first.key("free");
    for (let i = 0; i < 3; i++) expect((await first.post("/xql/run", QUERY, key)).status).toBe(200);
    await first.stop();
    server = await start(prefix);
    expect(await (await server.get("/usage", key)).json()).toMatchObject({ used: 3, remaining: 27 });
  });

  it("answers /health with 200 when both stores answer", async () => {
    server = await start();
    const health = await server.get("/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
  });
});
