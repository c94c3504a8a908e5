/** The playground's routes over real HTTP: the page, its assets, GET /xql/bars and GET /xql/symbols. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NOW, startServer, type Running } from "./helpers.js";
import { barOpen, rampBars, tempDir } from "../kit/index.js";

let server: Running | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("GET /xql/bars", () => {
  it("answers the latest bars of one symbol, oldest first, without metering", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const response = await server.get("/xql/bars?market=forex&symbol=EURUSD&timeframe=h1&bars=5", key);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { market: string; symbol: string; timeframe: string; bars: Record<string, number[]> };
    expect(body).toMatchObject({ market: "FOREX", symbol: "EURUSD", timeframe: "h1" });
    // The seeded ramp: EURUSD closes 100..499 on h1, so the latest five are 495..499.
    expect(body.bars.close).toEqual([495, 496, 497, 498, 499]);
    expect(Object.keys(body.bars).sort()).toEqual(["close", "high", "low", "open", "time", "volume"]);
    expect(body.bars.time).toEqual([...body.bars.time].sort((a, b) => a - b));
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(0);
  });

  it("defaults to 300 bars, the service's warm-up", async () => {
    server = await startServer();
    const { key } = await server.key();
    const body = (await (await server.get("/xql/bars?market=FOREX&symbol=GBPUSD&timeframe=h1", key)).json()) as { bars: { time: number[] } };
    expect(body.bars.time).toHaveLength(300);
  });

  it("needs a key", async () => {
    server = await startServer();
    const response = await server.get("/xql/bars?market=FOREX&symbol=EURUSD&timeframe=h1");
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "Missing or invalid API key" });
  });

  it.each([
    ["?symbol=EURUSD&timeframe=h1", "market, symbol and timeframe are required, e.g. ?market=FOREX&symbol=EURUSD&timeframe=h1"],
    ["?market=STOCKS&symbol=EURUSD&timeframe=h1", "Unknown market 'STOCKS'; known: FOREX, CRYPTO"],
    ["?market=FOREX&symbol=EURUSD&timeframe=h2", "Unknown timeframe 'h2'; use one of m1 m5 m15 m30 h1 h4 d w"],
    ["?market=FOREX&symbol=EURUSD&timeframe=h1&bars=0", "bars must be an integer from 1 to 12503"],
    ["?market=FOREX&symbol=EURUSD&timeframe=h1&bars=12504", "bars must be an integer from 1 to 12503"],
    ["?market=FOREX&symbol=EURUSD&timeframe=h1&bars=1e3", "bars must be an integer from 1 to 12503"],
  ])("answers 400 for %s", async (query, error) => {
    server = await startServer();
    const { key } = await server.key();
    const response = await server.get(`/xql/bars${query}`, key);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error });
  });

  it("says where a synced series' bars came from, for a derived timeframe the feed of the one it derives from", async () => {
    server = await startServer();
    const { key } = await server.key();
    const syncedAt = Date.UTC(2026, 11, 6, 0, 40);
    await server.store.recordFeeds([{ market: "FOREX", timeframe: "h1", symbol: "EURUSD", source: "oanda", price: "bid", syncedAt }]);
    const feed = { source: "oanda", price: "bid", lastSync: "2026-12-06T00:40:00.000Z" };
    for (const timeframe of ["h1", "d"]) {
      const body = (await (await server.get(`/xql/bars?market=FOREX&symbol=EURUSD&timeframe=${timeframe}&bars=2`, key)).json()) as { feed?: unknown };
      expect(body.feed, timeframe).toEqual(feed);
    }
    // Bars imported or seeded: no feed.
    expect(await (await server.get("/xql/bars?market=FOREX&symbol=GBPUSD&timeframe=h1&bars=2", key)).json()).not.toHaveProperty("feed");
  });

  it("answers 404 for a symbol without bars at that timeframe", async () => {
    server = await startServer();
    const { key } = await server.key();
    // BTCUSDT is imported at h1 only: d is derived from it (decisions §2), m5 (finer) is not.
    const response = await server.get("/xql/bars?market=CRYPTO&symbol=BTCUSDT&timeframe=m5", key);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "No m5 bars for 'BTCUSDT' in CRYPTO" });
    expect((await server.get("/xql/bars?market=CRYPTO&symbol=BTCUSDT&timeframe=d", key)).status).toBe(200);
  });
});

describe("GET /xql/symbols", () => {
  it("answers a market's symbols holding bars, sorted, in its configured spelling, without metering", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const response = await server.get("/xql/symbols?market=forex", key);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual({ market: "FOREX", symbols: ["EURUSD", "GBPUSD", "USDJPY"] });
    expect(await (await server.get("/xql/symbols?market=CRYPTO", key)).json()).toEqual({ market: "CRYPTO", symbols: ["BTCUSDT"] });
    expect(((await (await server.get("/usage", key)).json()) as { used: number }).used).toBe(0);
  });

  it("answers 304 to the ETag of an unchanged list, and the new list once bars of a new symbol are written", async () => {
    server = await startServer();
    const { key } = await server.key();
    const first = await server.get("/xql/symbols?market=FOREX", key);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const revalidate = (tag: string): Promise<Response> =>
      fetch(`${server!.url}/xql/symbols?market=FOREX`, { headers: { Authorization: `Bearer ${key}`, "If-None-Match": tag } });
    const unchanged = await revalidate(etag);
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe("");
    expect((await revalidate(`W/${etag}, "other"`)).status).toBe(304);
    await server.store.upsertBars([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "AUDUSD", bars: rampBars("h1", 5, barOpen("h1", NOW), 1) }] }]);
    const changed = await revalidate(etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(await changed.json()).toEqual({ market: "FOREX", symbols: ["AUDUSD", "EURUSD", "GBPUSD", "USDJPY"] });
  });

  it.each([
    ["", 400, { error: "market is required, e.g. ?market=FOREX" }],
    ["?market=STOCKS", 400, { error: "Unknown market 'STOCKS'; known: FOREX, CRYPTO" }],
  ])("answers 400 for '%s', and 401 without a key", async (query, status, body) => {
    server = await startServer();
    const { key } = await server.key();
    const response = await server.get(`/xql/symbols${query}`, key);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(body);
    expect((await server.get("/xql/symbols?market=FOREX")).status).toBe(401);
  });
});

describe("GET / (the playground page)", () => {
  it("serves the built page and its assets, and nothing else from the folder", async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const dir = join(temp.dir, "page");
    mkdirSync(dir);
    writeFileSync(join(dir, "index.html"), '<!doctype html><script src="/playground/app-X.js"></script>');
    writeFileSync(join(dir, "app-X.js"), "console.log(1)");
    writeFileSync(join(dir, "secret.txt"), "not served");
    server = await startServer({ playgroundDir: dir });
    const page = await server.get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    // The page holds an API key field: no other site may frame it.
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(await page.text()).toContain("app-X.js");
    const script = await server.get("/playground/app-X.js");
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toContain("immutable");
    expect((await server.get("/playground/secret.txt")).status).toBe(404);
    expect((await server.get("/playground/..%2Fxql.db")).status).toBe(404);
  });

  it("serves a 16×16 icon at /favicon.ico, without a key", async () => {
    server = await startServer();
    const response = await server.get("/favicon.ico");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/x-icon");
    const icon = Buffer.from(await response.arrayBuffer());
    // ICONDIR (type 1, one image), a 16×16 32-bit entry whose bitmap starts right after it.
    expect([icon.readUInt16LE(0), icon.readUInt16LE(2), icon.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([icon[6], icon[7], icon.readUInt16LE(12), icon.readUInt32LE(18)]).toEqual([16, 16, 32, 22]);
    expect(icon.readUInt32LE(14)).toBe(icon.length - 22);
    // Some pixels drawn opaque, the rest transparent.
    const alphas = Array.from({ length: 256 }, (_, i) => icon[62 + i * 4 + 3]);
    expect(alphas.filter((a) => a === 0xff).length).toBeGreaterThan(20);
    expect(alphas.filter((a) => a === 0).length).toBeGreaterThan(150);
  });

  it("says how to build the page when it is not built", async () => {
    server = await startServer();
    const response = await server.get("/");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "The playground is not built; run `npm run build`" });
  });
});
