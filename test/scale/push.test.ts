/**
 * `POST /xql/bars` on PostgreSQL with two replicas: pushes to one while both run, no 500 and
 * no run that sees part of a push; the other replica's store hears of each write (LISTEN/NOTIFY).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { issueApiKey } from "../../src/accounts/keys.js";
import type { DataChange } from "../../src/store/store.js";
import { DATABASE_URL, HAVE_SERVICES, REDIS_URL, type Replica, eventually, freshDatabase, freshPrefix, startReplica } from "./helpers.js";

const MINUTE = 60_000;

describe.skipIf(!HAVE_SERVICES)("POST /xql/bars on PostgreSQL", () => {
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
      await eventually(async () => changes.some((c) => c.origin === "remote"));
    } finally {
      stop();
    }
  });
});
