/**
 * `POST /xql/bars` on PostgreSQL with two replicas: pushes to one while both run, no 500 and
 * no run that sees part of a push; the other replica's store hears of each write (LISTEN/NOTIFY).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { issueApiKey } from "../../src/accounts/keys.js";
import type { DataChange } from "../../src/store/store.js";
import { until, needsServices } from "../kit/index.js";
import { DATABASE_URL, REDIS_URL, type Replica, freshDatabase, freshPrefix, startReplica } from "./helpers.js";

const MINUTE = 60_000;

needsServices("POST /xql/bars on PostgreSQL", () => {
  let drop: () => Promise<void>;
  let a: Replica;
  let b: Replica;
  beforeEach(async () => {
    const fresh = await freshDatabase(DATABASE_URL!);
    drop = fresh.drop;
    const prefix = freshPrefix();
    a = await startReplica({ databaseUrl: fresh.url, redisUrl: REDIS_URL!, prefix });
    b = await startReplica({ databaseUrl: fresh.url, redisUrl: REDIS_URL!, prefix });
  });
  afterEach(async () => {
    await a.stop();
    await b.stop();
    await drop();
  });

  it("pushes racing runs on two replicas: no 500, every run sees whole pushes, the other replica hears of them", async () => {
    const writer = await issueApiKey(a.store, { tier: "plus", scope: "write", now: Date.now() });
    const { key } = await a.key("plus");
    const changes: DataChange[] = [];
    const stop = b.store.watch((change) => changes.push(change));
    const open = Math.floor(Date.now() / MINUTE) * MINUTE;
    const symbols = Array.from({ length: 10 }, (_, i) => `S${i}USDT`);
    const push = (generation: number) =>
      fetch(`${a.url}/xql/bars`, {
        method: "POST",
        headers: { authorization: `Bearer ${writer.key}`, "content-type": "application/x-ndjson" },
        body: symbols
          .map((symbol) => {
            const price = 100 + generation;
            return JSON.stringify({ market: "CRYPTO", timeframe: "m1", symbol, time: open - (40 - generation) * MINUTE, open: price, high: price + 1, low: price - 1, close: price, volume: 1 });
          })
          .join("\n"),
      });
    try {
      expect((await push(0)).status).toBe(200);
      const query = 'market = "CRYPTO"\ntimeframe = m1\ncolumns = [close]\ntrue';
      const pushes: Promise<Response>[] = [];
      const runs: Promise<Response>[] = [];
      for (let g = 1; g <= 20; g++) {
        pushes.push(push(g));
        runs.push(a.post("/xql/run", query, key), b.post("/xql/run", query, key));
      }
      for (const response of await Promise.all(pushes)) expect(response.status, await response.clone().text()).toBe(200);
      for (const response of await Promise.all(runs)) {
        expect(response.status, `run: ${await response.clone().text()}`).toBe(200);
        const { results } = (await response.json()) as { results: { symbol: string; columns: { close: number } }[] };
        expect(results.map((r) => r.symbol)).toEqual(symbols);
        expect(new Set(results.map((r) => r.columns.close)).size).toBe(1);
      }
      await until(async () => changes.some((c) => c.origin === "remote"));
    } finally {
      stop();
    }
  });

  it("holds a free account to 1,000 series across replicas: racing pushes of new series never pass the cap together (migration 7 on PostgreSQL)", async () => {
    const writer = await issueApiKey(a.store, { tier: "free", scope: "write", now: Date.now() });
    const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;
    const csv = (from: number, to: number) =>
      `symbol,time,open,high,low,close,volume\n${Array.from({ length: to - from }, (_, i) => `P${from + i},${day},1.5,2.5,1.25,2,1000`).join("\n")}\n`;
    const push = (replica: Replica, body: string) =>
      fetch(`${replica.url}/xql/bars?market=CRYPTO&timeframe=d`, {
        method: "POST",
        headers: { authorization: `Bearer ${writer.key}`, "content-type": "text/csv" },
        body,
      });
    expect((await push(a, csv(0, 900))).status).toBe(200);
    // 900 held: of two pushes of 60 new series each, on two replicas at once, exactly one fits.
    const [one, two] = await Promise.all([push(a, csv(900, 960)), push(b, csv(960, 1_020))]);
    expect([one.status, two.status].sort()).toEqual([200, 403]);
    const refused = one.status === 403 ? one : two;
    expect(await refused.json()).toEqual({ error: "Series limit reached for this tier" });
    expect((await a.store.symbols("CRYPTO")).filter((s) => s.startsWith("P")).length).toBe(960);
    // 40 more fit exactly; then no more.
    expect((await push(b, csv(2_000, 2_040))).status).toBe(200);
    expect((await push(a, csv(3_000, 3_001))).status).toBe(403);
    // New bars for series it holds still go in.
    expect((await push(a, csv(0, 10))).status).toBe(200);
  });
});
