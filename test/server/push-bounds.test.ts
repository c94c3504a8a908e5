/**
 * The bounds of `POST /xql/bars` (decisions §14) on a real server over loopback and a real
 * SQLite file: new series per push and per tier, markets the service does not have, the
 * account's admission, and other accounts' requests going on while a push is being written.
 */
import { afterEach, describe, expect, it } from "vitest";
import { issueApiKey } from "../../src/accounts/keys.js";
import { createServer } from "../../src/server/index.js";
import { SERIES_PER_PUSH, SERIES_PER_TIER } from "../../src/server/push.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { WriteOptions } from "../../src/store/store.js";
import { tempDir } from "../kit/index.js";
import { NOW, TestClock, startServer, type Running } from "./helpers.js";

const DAY = 86_400_000;
const MINUTE = 60_000;
/** A closed daily bar at the server's clock: daily pushes keep the write small (d and w only). */
const YESTERDAY = Math.floor(NOW / DAY) * DAY - DAY;
const CSV = { "content-type": "text/csv" };
const NDJSON = { "content-type": "application/x-ndjson" };

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function writeKey(s: Running, tier: "free" | "essential" | "plus", accountId?: string): Promise<string> {
  return (await issueApiKey(s.store, { tier: accountId ? undefined : tier, accountId, scope: "write", now: NOW })).key;
}

/** One daily bar for each of `symbols`, as a CSV push body. */
function dailyCsv(symbols: readonly string[]): string {
  const time = new Date(YESTERDAY).toISOString();
  return `symbol,time,open,high,low,close,volume\n${symbols.map((s) => `${s},${time},1.5,2.5,1.25,2,1000`).join("\n")}\n`;
}

const names = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);

const pushCsv = (s: Running, key: string, body: string) => s.post("/xql/bars?market=CRYPTO&timeframe=d", body, key, CSV);

describe("POST /xql/bars: series caps (decisions §14)", () => {
  it("the contract's numbers are the ones the route uses", () => {
    expect(SERIES_PER_PUSH).toBe(10_000);
    expect(SERIES_PER_TIER).toEqual({ free: 1_000, essential: 20_000, plus: 100_000 });
  });

  it("refuses a push of more than 10,000 new series with a 400 naming the count, writing nothing; stored series do not count as new", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server, "plus");
    const refused = await pushCsv(server, key, dailyCsv(names("S", 0, 10_001)));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "the push would create 10,001 new series; one push creates at most 10,000; nothing was written", line: 0 });
    expect(await server.store.barCount()).toBe(0);

    // One of the 10,001 stored first (by an import: no account's): the same push then creates
    // exactly 10,000 and is written whole.
    await server.store.upsertBars([{ market: "CRYPTO", timeframe: "d", symbols: [{ symbol: "S0", bars: { time: [YESTERDAY - DAY], open: [1], high: [1], low: [1], close: [1], volume: [1] } }] }]);
    const accepted = await pushCsv(server, key, dailyCsv(names("S", 0, 10_001)));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ written: 10_001, replaced: 0, symbols: 10_001 });
  }, 120_000);

  it("holds a free account to 1,000 series: the 1,001st is a 403, updates of its series and others' accounts go on", async () => {
    server = await startServer({ seed: false });
    const issued = await issueApiKey(server.store, { tier: "free", scope: "write", now: NOW });
    const key = issued.key;
    const first = await pushCsv(server, key, dailyCsv(names("F", 0, 1_000)));
    expect(first.status).toBe(200);
    expect(((await first.json()) as { symbols: number }).symbols).toBe(1_000);

    const over = await pushCsv(server, key, dailyCsv(["F1000"]));
    expect(over.status).toBe(403);
    expect(await over.json()).toEqual({ error: "Series limit reached for this tier" });
    expect((await server.store.symbols("CRYPTO")).includes("F1000")).toBe(false);
    // A push that also names a new series is refused whole: the update beside it is not written.
    const mixed = await pushCsv(server, key, `symbol,time,open,high,low,close,volume\nF0,${new Date(YESTERDAY).toISOString()},9,9,9,9,9\nF1001,${new Date(YESTERDAY).toISOString()},9,9,9,9,9\n`);
    expect(mixed.status).toBe(403);

    // New bars for its own series create nothing.
    const update = await pushCsv(server, key, dailyCsv(["F0", "F999"]));
    expect(update.status).toBe(200);
    expect(await update.json()).toEqual({ written: 2, replaced: 2, symbols: 2 });
    // Another key of the same account shares the cap; another account has its own.
    const sameAccount = await writeKey(server, "free", issued.record.accountId);
    expect((await pushCsv(server, sameAccount, dailyCsv(["F1000"]))).status).toBe(403);
    const other = await writeKey(server, "free");
    expect((await pushCsv(server, other, dailyCsv(["G0", "F0"]))).status).toBe(200);
  }, 120_000);
});

describe("POST /xql/bars: markets", () => {
  it("refuses a row of a market the service does not have, naming its line, and writes nothing", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server, "plus");
    const bar = (market: string, symbol: string) => JSON.stringify({ market, timeframe: "m1", symbol, time: NOW - 5 * MINUTE, open: 1, high: 2, low: 0.5, close: 1.5, volume: 1 });
    const ndjson = await server.post("/xql/bars", [bar("CRYPTO", "A"), bar("crypto", "B"), bar("FUZZ", "C")].join("\n"), key, NDJSON);
    expect(ndjson.status).toBe(400);
    expect(await ndjson.json()).toEqual({ error: "line 3: market 'FUZZ' is not one of this service's markets (FOREX, CRYPTO); nothing was written", line: 3 });
    const csv = await server.post("/xql/bars?market=FUZZ&timeframe=d", dailyCsv(["A"]), key, CSV);
    expect(csv.status).toBe(400);
    expect(await csv.json()).toEqual({ error: "market 'FUZZ' is not one of this service's markets (FOREX, CRYPTO); nothing was written", line: 0 });
    expect(await server.store.barCount()).toBe(0);
    expect(await server.store.markets()).toEqual([]);
  });
});

describe("POST /xql/bars: admission and slices", () => {
  /**
   * A server whose store lets the test see a push's write slices: `hold` resolves the first
   * slice's turn only when the test says so, so the write is demonstrably open meanwhile.
   */
  async function slicedServer(options: { maxRunsInFlight?: number; maxRunsQueued?: number } = {}) {
    const temp = tempDir();
    // A turn at every pause of the write: the write is sliced however fast it runs.
    const inner = new SqliteStore(`${temp.dir}/xql.db`, { writeSliceMs: 0 });
    let slices = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstSlice!: () => void;
    const sliced = new Promise<void>((resolve) => (firstSlice = resolve));
    const store = Object.create(inner) as SqliteStore;
    store.upsertBars = (batches, onProgress, write?: WriteOptions) =>
      inner.upsertBars.call(store, batches, onProgress, {
        ...write,
        turn: async () => {
          slices++;
          if (slices === 1) {
            firstSlice();
            await released;
          }
          await write!.turn!();
        },
      });
    const app = createServer({ store, clock: new TestClock(NOW), ...options });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    return {
      url: `http://127.0.0.1:${address.port}`,
      inner,
      slices: () => slices,
      sliced,
      release,
      async stop() {
        release();
        await app.close();
        await inner.close();
        temp.cleanup();
      },
    };
  }

  it("another account's requests complete while a push's write is open, and see none of it until it commits", async () => {
    const s = await slicedServer();
    try {
      const writer = (await issueApiKey(s.inner, { tier: "plus", scope: "write", now: NOW })).key;
      const victim = (await issueApiKey(s.inner, { tier: "plus", now: NOW })).key;
      const body = dailyCsv(names("V", 0, 2_000));
      let pushDone = false;
      const push = fetch(`${s.url}/xql/bars?market=CRYPTO&timeframe=d`, { method: "POST", headers: { authorization: `Bearer ${writer}`, ...CSV }, body }).then((r) => {
        pushDone = true;
        return r;
      });
      // Without slices the write never turns and this never resolves: the push's answer ends the wait.
      await Promise.race([s.sliced, push]);
      expect(s.slices()).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++) {
        const run = await fetch(`${s.url}/xql/run`, { method: "POST", headers: { authorization: `Bearer ${victim}` }, body: 'market = "CRYPTO"\ntimeframe = d\ntrue' });
        expect(run.status).toBe(200);
        // The write is open (held at a slice): a run sees none of its bars.
        expect(((await run.json()) as { results: unknown[] }).results).toEqual([]);
        expect(pushDone).toBe(false);
      }
      s.release();
      const answer = await push;
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ written: 2_000, replaced: 0, symbols: 2_000 });
      expect(s.slices()).toBeGreaterThan(1);
      expect((await s.inner.symbols("CRYPTO")).length).toBe(2_000);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("goes through the account's admission: with one request in flight and none queued, a second request of the account is a 429", async () => {
    const s = await slicedServer({ maxRunsInFlight: 1, maxRunsQueued: 0 });
    try {
      const issued = await issueApiKey(s.inner, { tier: "plus", scope: "write", now: NOW });
      const push = fetch(`${s.url}/xql/bars?market=CRYPTO&timeframe=d`, { method: "POST", headers: { authorization: `Bearer ${issued.key}`, ...CSV }, body: dailyCsv(names("A", 0, 500)) });
      await Promise.race([s.sliced, push]);
      expect(s.slices()).toBeGreaterThan(0);
      const second = await fetch(`${s.url}/xql/bars?market=CRYPTO&timeframe=d`, { method: "POST", headers: { authorization: `Bearer ${issued.key}`, ...CSV }, body: dailyCsv(["B"]) });
      expect(second.status).toBe(429);
      s.release();
      expect((await push).status).toBe(200);
    } finally {
      await s.stop();
    }
  }, 60_000);
});
