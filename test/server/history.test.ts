/**
 * POST /xql/history over real HTTP on loopback and a real SQLite file: metered like run (one
 * request), the same auth, statuses and headers, `?bars=N` checked, the body decisions §5 shows.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HOUR } from "../kit/index.js";
import { barOpen } from "../kit/index.js";
import { NOW, startServer, type Running } from "./helpers.js";

// EURUSD closes 100..499 on h1 (latest 499), GBPUSD 1..400, USDJPY 50..449; 400 daily bars each.
const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 495 and d::close > 0';
const LATEST = barOpen("h1", NOW);
const NEXT_MIDNIGHT = Date.UTC(2026, 10, 21);

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const remaining = (r: Response) => Number(r.headers.get("x-ratelimit-remaining"));

describe("POST /xql/history", () => {
  it("answers the matches by bar with forward returns, and counts one request", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const response = await server.post("/xql/history?bars=10", QUERY, key);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit")).toBe("30");
    expect(remaining(response)).toBe(29);
    expect(response.headers.get("x-ratelimit-reset")).toBe(String(NEXT_MIDNIGHT / 1000));
    const body = (await response.json()) as {
      matches: { time: number; symbol: string; columns: Record<string, number> }[];
      stats: { bars: number; matches: number; symbolsMatched: number; forward: Record<string, { n: number; mean: number | null; median: number | null; hitRate: number | null }> };
      meta: unknown;
    };
    // EURUSD closes above 495 on its last four bars (496..499), nothing else does.
    expect(body.matches).toEqual([3, 2, 1, 0].map((ago) => ({ time: LATEST - ago * HOUR, symbol: "EURUSD", columns: { close: 499 - ago } })));
    expect(body.stats).toMatchObject({ bars: 10, matches: 4, symbolsMatched: 1 });
    // One bar later: 496→497, 497→498, 498→499 (the last match has no later bar).
    const one = [497 / 496, 498 / 497, 499 / 498].map((r) => 100 * (r - 1));
    expect(body.stats.forward["1"]!.n).toBe(3);
    expect(body.stats.forward["1"]!.median).toBe(one[1]);
    expect(body.stats.forward["1"]!.hitRate).toBe(1);
    expect(body.stats.forward["1"]!.mean).toBeCloseTo((one[0]! + one[1]! + one[2]!) / 3, 12);
    expect(body.stats.forward["5"]).toEqual({ n: 0, mean: null, median: null, hitRate: null });
    expect(body.meta).toEqual({ instruments: 3, matched: 4, skipped: { shortHistory: 0, noData: 0 }, asOf: new Date(LATEST).toISOString(), unconverged: 0 });
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(1);
  });

  it("defaults to 100 bars and takes up to 1,000", async () => {
    server = await startServer();
    const { key } = await server.key("plus");
    const byDefault = (await (await server.post("/xql/history", QUERY, key)).json()) as { stats: { bars: number } };
    expect(byDefault.stats.bars).toBe(100);
    const most = (await (await server.post("/xql/history?bars=1000", 'market = "FOREX"\ntimeframe = h1\ntrue', key)).json()) as {
      stats: { bars: number; matches: number };
    };
    // 400 h1 bars per symbol are all there is: the window holds them all.
    expect(most.stats.bars).toBe(400);
    expect(most.stats.matches).toBe(1200);
  });

  it.each(["0", "1001", "abc", "-5", "2.5", ""])("answers 400 for bars=%s with the rate-limit headers, consuming nothing", async (bars) => {
    server = await startServer();
    const { key } = await server.key("free");
    const response = await server.post(`/xql/history?bars=${bars}`, QUERY, key);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "Query parameter 'bars' must be an integer from 1 to 1000" });
    expect(remaining(response)).toBe(30);
  });

  it("gives the quota back on a query error, answers 401 without a key and 429 when the day is used", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const invalid = await server.post("/xql/history", 'market = "FOREX"\ntimeframe = h1\nrsi(14 < 30', key);
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { valid: boolean }).valid).toBe(false);
    expect(remaining(invalid)).toBe(30);
    const anonymous = await server.post("/xql/history", QUERY);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    for (let i = 0; i < 30; i++) expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    const refused = await server.post("/xql/history", QUERY, key);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Daily API rate limit exceeded" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("is described in /openapi.json", async () => {
    server = await startServer();
    const doc = (await (await server.get("/openapi.json")).json()) as { paths: Record<string, { post?: { parameters?: { name: string }[] } }> };
    expect(doc.paths["/xql/history"]?.post?.parameters?.map((p) => p.name)).toEqual(["bars"]);
  });
});
