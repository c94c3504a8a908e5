/**
 * Redis and PostgreSQL stopped under a running replica (by PID, through scripts/services.sh)
 * and started again. This suite runs its own pair of servers on other ports, with Redis
 * persisting its counters as production should, so stopping them disturbs no other suite.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { NOW, TestClock } from "../server/helpers.js";
import { until, needsServices } from "../kit/index.js";
import { ROOT, freshPrefix, seedSmall, services, startReplica, type Replica } from "./helpers.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';
const ENV = {
  XQL_SERVICES_DIR: resolve(ROOT, ".tmp/services-outage"),
  XQL_PG_PORT: "54339",
  XQL_REDIS_PORT: "63809",
  XQL_REDIS_PERSIST: "1",
};
const DATABASE_URL = "postgres://xql@127.0.0.1:54339/xql";
const REDIS_URL = "redis://127.0.0.1:63809";

needsServices("outages of Redis and PostgreSQL under a replica", () => {
  let server: Replica;
  let key: string;

  beforeAll(async () => {
    await services(["start"], ENV);
    server = await startReplica({ databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, prefix: freshPrefix(), clock: new TestClock(NOW) });
    await server.store.pool.query("TRUNCATE series, bar_blocks, changes");
    await seedSmall(server.store);
    ({ key } = await server.key("free"));
    for (let i = 0; i < 2; i++) expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await services(["stop"], ENV);
  }, 60_000);

  const used = async (): Promise<number> => ((await (await server.get("/usage", key)).json()) as { used: number }).used;

  it("Redis down: run answers 500 and consumes nothing, validate and explain answer; back up: metering resumes with nothing lost", async () => {
    expect(await used()).toBe(2);
    await services(["stop-redis"], ENV);
    const failed = await server.post("/xql/run", QUERY, key);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: "Data store unavailable" });
    expect((await server.post("/xql/validate", QUERY, key)).status).toBe(200);
    expect((await server.post("/xql/explain", QUERY, key)).status).toBe(200);
    expect((await server.get("/usage", key)).status).toBe(500);
    expect((await server.get("/health")).status).toBe(503);

    await services(["start-redis"], ENV);
    await until(async () => (await server.get("/health")).status === 200);
    // The failed run took nothing; the two before it were kept.
    expect(await used()).toBe(2);
    const admitted = await server.post("/xql/run", QUERY, key);
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get("x-ratelimit-remaining")).toBe("27");
    expect(await used()).toBe(3);
  }, 60_000);

  it("PostgreSQL down: run answers 500 and gives its reservation back, health reports it, validate and explain answer", async () => {
    await services(["stop-postgres"], ENV);
    const failed = await server.post("/xql/run", QUERY, key);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: "Data store unavailable" });
    expect(failed.headers.get("x-ratelimit-remaining")).toBe("27");
    const health = await server.get("/health");
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "unavailable" });
    expect((await server.post("/xql/validate", QUERY, key)).status).toBe(200);
    expect((await server.post("/xql/explain", QUERY, key)).status).toBe(200);
    expect(await used()).toBe(3);
    // A key this replica has never seen cannot be checked while the database is down.
    expect((await server.post("/xql/validate", QUERY, `xql_${"B".repeat(32)}`)).status).toBe(500);

    await services(["start-postgres"], ENV);
    await until(async () => (await server.get("/health")).status === 200);
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    expect(await used()).toBe(4);
  }, 60_000);
});
