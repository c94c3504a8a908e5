/**
 * Fair use (issue 24, decisions §2 "Fair use"), over real HTTP on loopback and a real SQLite
 * file: one admission for every authenticated route, history priced by its window and bounded
 * to 16 MiB before it is built, the attack's amplification sequence, reservations given back
 * whatever fails, and GET /xql/bars reading one series.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { BarStore, LatestBarsRequest } from "../../src/store/store.js";
import { MAX_RESPONSE_BYTES } from "../../src/json-size.js";
import { corruptBars, startServer, writeCryptoMarket, type Running } from "./helpers.js";
import { tempDir, until } from "../kit/index.js";
import { RAW_SERIES } from "../../src/types.js";

const HEAD = 'market = "CRYPTO"\ntimeframe = h1\n';
const SYMBOLS = 120;

/** A database of 120 CRYPTO symbols × 1,100 h1 bars, built once and copied per server. */
const scratch = tempDir();
const MARKET_FILE = join(scratch.dir, "market.db");
beforeAll(() => writeCryptoMarket(MARKET_FILE, SYMBOLS, 1100), 120_000);
afterAll(() => scratch.cleanup());

let server: Running | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server over a copy of the market database. */
async function marketServer(options: Parameters<typeof startServer>[0] = {}): Promise<Running> {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const file = join(dir, "xql.db");
  copyFileSync(MARKET_FILE, file);
  return startServer({ file, dir, seed: false, ...options });
}

const used = async (s: Running, key: string): Promise<number> => ((await (await s.get("/usage", key)).json()) as { used: number }).used;
const columns = (n: number, f: (i: number) => string): string => `columns = [${Array.from({ length: n }, (_, i) => f(i)).join(", ")}]\n`;
/** The attack's 58 KB query: 50 columns, each with a 1.1 KB comment in its text (so in its key). */
const LONG_COMMENTS = (tag: string): string => `${HEAD}${columns(50, (i) => `close + ${i} // ${tag} ${"x".repeat(1100)}\n`)}true`;
/** 50 cheap columns: cost 102. */
const CHEAP_50 = (tag: string, condition = "true"): string => `${HEAD}// ${tag}\n${columns(50, (i) => `close + ${i}`)}${condition}`;
const SERIES_8 = (tag: string): string => `${HEAD}// ${tag}\n${columns(8, (i) => ["open", "high", "low", "close", "volume", "hl2", "hlc3", "ohlc4"][i]!)}true`;

describe("history priced by its window", () => {
  it("refuses a window whose passes cost more than the budget before any reservation, naming the largest window that fits", async () => {
    server = await marketServer();
    const { key } = await server.key("free");
    // 50 emas: every pass runs 50 kernels over the bars it covers (up to 600 before its first bar).
    const query = (tag: string, condition: string): string => `${HEAD}// ${tag}\n${columns(50, (i) => `ema(close, ${i + 2})`)}${condition}`;
    const response = await server.post("/xql/history?bars=1000", query("a", "true"), key);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { valid: false; error: { type: string; message: string } };
    expect(body.error.type).toBe("plan");
    const refused = /^History too costly to run: its cost is ([\d,]+) bar-steps per instrument for a window of 1,000 bars, above the budget of 100,000; ask for at most ([\d,]+) bars$/.exec(body.error.message);
    expect(refused, body.error.message).not.toBeNull();
    expect(Number(refused![1]!.replace(/,/g, ""))).toBeGreaterThan(100_000);
    const most = Number(refused![2]!.replace(/,/g, ""));
    // Every screen whose run is admitted gets 100 bars (decisions §5).
    expect(most).toBeGreaterThanOrEqual(100);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("30");
    // The largest window fits (a condition that never holds: a small answer); one more does not.
    const fits = await server.post(`/xql/history?bars=${most}`, query("b", "close < 0"), key);
    expect(fits.status).toBe(200);
    expect((await server.post(`/xql/history?bars=${most + 1}`, query("c", "close < 0"), key)).status).toBe(400);
    expect(await used(server, key)).toBe(1);
  });

  it("takes the window from a JSON body, and refuses a bad one or one that differs from ?bars", async () => {
    server = await marketServer();
    const { key } = await server.key("plus");
    const json = { "content-type": "application/json" };
    const query = `${HEAD}close > 0`;
    const fromBody = await server.post("/xql/history", JSON.stringify({ query, bars: 7 }), key, json);
    expect(fromBody.status).toBe(200);
    expect(((await fromBody.json()) as { stats: { bars: number } }).stats.bars).toBe(7);
    expect((await server.post("/xql/history?bars=7", JSON.stringify({ query, bars: 7 }), key, json)).status).toBe(200);
    const differ = await server.post("/xql/history?bars=8", JSON.stringify({ query, bars: 7 }), key, json);
    expect(differ.status).toBe(400);
    expect(differ.headers.get("x-ratelimit-remaining")).toBe("4498");
    expect(await differ.json()).toEqual({
      valid: false,
      error: { type: "syntax", message: `The JSON field "bars" (7) and the query parameter 'bars' (8) differ; give the window once`, position: { line: 1, column: 1, offset: 0 } },
    });
    for (const bad of [0, 1001, 2.5, "7", null]) {
      const response = await server.post("/xql/history", JSON.stringify({ query, bars: bad }), key, json);
      expect(response.status, String(bad)).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe('The JSON field "bars" must be an integer from 1 to 1000');
    }
    // Only history takes "bars": run keeps its one-field body.
    const run = await server.post("/xql/run", JSON.stringify({ query, bars: 7 }), key, json);
    expect(run.status).toBe(400);
    expect(((await run.json()) as { error: { message: string } }).error.message).toMatch(/^The JSON body has fields other than "query" \("bars"\)/);
    expect(await used(server, key)).toBe(2);
  });
});

describe("the attack's amplification sequence", () => {
  it("answers 400s or bounded 200s, builds no answer over 16 MiB, charges no failure, and stays alive with bounded memory", async () => {
    server = await marketServer();
    const { key } = await server.key("free");
    const rssBefore = process.memoryUsage().rss;
    // 50 cheap columns over 1,000 bars, a new comment each time: 169 MB answers before; now priced out.
    for (let i = 0; i < 7; i++) {
      const response = await server.post("/xql/history?bars=1000", CHEAP_50(`attempt ${i}`), key);
      expect(response.status).toBe(400);
      // Priced by its passes (decisions §5) it may be admitted; then its answer is over the bound, never built.
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^(History too costly to run|Response too large)/);
    }
    // The 58 KB long-comment query: priced out at 1,000 bars; at 4 bars its answer (120 × 4 × 58 KB) is over 16 MiB.
    expect((await server.post("/xql/history?bars=1000", LONG_COMMENTS("a"), key)).status).toBe(400);
    for (const query of [LONG_COMMENTS("b"), SERIES_8("c")]) {
      const started = performance.now();
      const response = await server.post(`/xql/history?bars=${query.length > 50_000 ? 4 : 1000}`, query, key);
      const body = (await response.json()) as { error: { type: string; message: string } };
      expect(response.status).toBe(400);
      expect(body.error).toEqual({ type: "plan", message: `Response too large: its JSON would exceed ${MAX_RESPONSE_BYTES.toLocaleString("en-US")} bytes; use fewer columns, shorter column expressions or a limit, or ask history for fewer bars` });
      console.log(`amplification: ${query.length.toLocaleString("en-US")}-character query refused in ${(performance.now() - started).toFixed(0)} ms`);
    }
    // Nothing so far consumed quota: every refusal was a 400, those after a reservation gave it back.
    expect(await used(server, key)).toBe(0);
    // A bounded 200 still answers: 8 columns over 100 bars of 120 symbols.
    const bounded = await server.post("/xql/history?bars=100", SERIES_8("d"), key);
    expect(bounded.status).toBe(200);
    const text = await bounded.text();
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_RESPONSE_BYTES);
    expect((JSON.parse(text) as { matches: unknown[] }).matches).toHaveLength(SYMBOLS * 100);
    expect(await used(server, key)).toBe(1);
    expect((await server.get("/health")).status).toBe(200);
    const grown = (process.memoryUsage().rss - rssBefore) / 1e6;
    console.log(`amplification: RSS grew ${grown.toFixed(0)} MB over the sequence`);
    // Before: 4.4 GB and a crash by the 7th request.
    expect(grown).toBeLessThan(1500);
  }, 120_000);

  it("refuses a run whose answer would exceed 16 MiB (50 long-comment columns over 400 symbols) without charging it", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    await writeCryptoMarket(join(dir, "xql.db"), 400, 2);
    server = await startServer({ file: join(dir, "xql.db"), dir, seed: false });
    const { key } = await server.key("free");
    const response = await server.post("/xql/run", LONG_COMMENTS("run"), key);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/^Response too large/);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("30");
    expect(await used(server, key)).toBe(0);
  });
});

describe("a 500 gives its reservation back, whatever failed", () => {
  it("on an evaluation that fails, for run and history alike", async () => {
    server = await marketServer();
    await server.stop();
    const store = new SqliteStore(server.file);
    server = await startServer({ file: server.file, dir: server.dir, seed: false, bars: corruptBars(store), cache: false });
    const { key } = await server.key("free");
    for (const path of ["/xql/run", "/xql/history?bars=5"]) {
      const response = await server.post(path, `${HEAD}close > 0`, key);
      expect(response.status, path).toBe(500);
      expect(await response.json()).toEqual({ error: "Internal server error" });
      expect(response.headers.get("x-ratelimit-remaining")).toBe("30");
    }
    expect(await used(server, key)).toBe(0);
    await store.close();
  });
});

/**
 * The real store on `file`, its first read of bars held until the test releases it: a run that
 * holds its account's slot for as long as the test wants, and says when it holds it (`reading`:
 * admitted and in its handler). Later reads go straight through.
 */
function firstReadHeld(file: string): { bars: BarStore; reading: Promise<void>; release: () => void; close: () => Promise<void> } {
  const store = new SqliteStore(file);
  let entered: () => void = () => undefined;
  const reading = new Promise<void>((resolve) => (entered = resolve));
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const bars = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === "latestBars") {
        return async (request: LatestBarsRequest) => {
          if (first) {
            first = false;
            entered();
            await released;
          }
          return target.latestBars(request);
        };
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { bars, reading, release, close: () => store.close() };
}

describe("one admission for every authenticated route", () => {
  it("refuses each route with 429 while the account's slots and queue are full, serves other accounts, and frees the slot after", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const file = join(dir, "xql.db");
    copyFileSync(MARKET_FILE, file);
    const held = firstReadHeld(file);
    cleanups.unshift(() => void held.close());
    // No hot tier: the held run reads the store, as every run without a cache does.
    server = await startServer({ file, dir, seed: false, bars: held.bars, cache: false, maxRunsInFlight: 1, maxRunsQueued: 0 });
    const { key, accountId } = await server.key("free");
    // A second key of the same account is the same account.
    const { key: sameAccount } = await server.key(undefined, accountId);
    const { key: other } = await server.key("free");
    const holding = server.post("/xql/run", `${HEAD}close > 0`, key);
    await held.reading;
    const symbol = (await server.store.symbols("CRYPTO"))[0]!;
    const requests: [string, (k: string) => Promise<Response>][] = [
      ["validate", (k) => server!.post("/xql/validate", `${HEAD}close > 0`, k)],
      ["explain", (k) => server!.post("/xql/explain", `${HEAD}close > 0`, k)],
      ["run", (k) => server!.post("/xql/run", `${HEAD}close > 0`, k)],
      ["history", (k) => server!.post("/xql/history?bars=3", `${HEAD}close > 0`, k)],
      ["bars", (k) => server!.get(`/xql/bars?market=CRYPTO&symbol=${symbol}&timeframe=h1&bars=5`, k)],
      ["symbols", (k) => server!.get("/xql/symbols?market=CRYPTO", k)],
      ["usage", (k) => server!.get("/usage", k)],
    ];
    for (const [name, send] of requests) {
      const refused = await send(sameAccount);
      expect(refused.status, name).toBe(429);
      expect(await refused.json()).toEqual({ error: "Too many concurrent requests for this account" });
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await send(other)).status, name).toBe(200);
    }
    // Run and history answers carry the rate-limit headers, the admission's 429 too (the held run has its call reserved).
    expect((await server.post("/xql/run", `${HEAD}close > 0`, sameAccount)).headers.get("x-ratelimit-remaining")).toBe("29");
    held.release();
    expect((await holding).status).toBe(200);
    // The slot is given back once the held answer has been sent, which the client may see first.
    await until(async () => (await server!.get("/usage", sameAccount)).status === 200, { what: "the slot given back" });
    for (const [name, send] of requests) expect((await send(sameAccount)).status, name).toBe(200);
  });
});

describe("GET /xql/bars", () => {
  it("reads the one series asked for, at most the bars a run would fetch for that timeframe", async () => {
    server = await marketServer();
    await server.stop();
    const store = new SqliteStore(server.file);
    const reads: LatestBarsRequest[] = [];
    const counting = new Proxy(store, {
      get(target, name, receiver) {
        if (name === "latestBars") return (request: LatestBarsRequest) => (reads.push(request), target.latestBars(request));
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    server = await startServer({ file: server.file, dir: server.dir, seed: false, bars: counting, warmupCeiling: 1000 });
    const { key } = await server.key("free");
    const symbol = (await store.symbols("CRYPTO"))[3]!;
    const response = await server.get(`/xql/bars?market=CRYPTO&symbol=${symbol}&timeframe=h1&bars=1000`, key);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { bars: { time: number[] } }).bars.time).toHaveLength(1000);
    expect(reads).toEqual([{ market: "CRYPTO", timeframe: "h1", baseTimeframe: "h1", series: RAW_SERIES, count: 1000, symbols: [symbol] }]);
    // Beyond what a run may read for a source (its anchors' reach over the warm-up ceiling of
    // 1,000: 2.5 × 1,000 + 3, decisions §9): refused.
    const over = await server.get(`/xql/bars?market=CRYPTO&symbol=${symbol}&timeframe=h1&bars=2504`, key);
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({ error: "bars must be an integer from 1 to 2503" });
    await store.close();
  });
});
