/** The results cache (issue 12): one lookup per (query text, data version), quota still metered per request. */
import { afterEach, describe, expect, it } from "vitest";
import { ResultsCache } from "../../src/server/results-cache.js";
import { NOW, startServer, type Running } from "./helpers.js";
import { barOpen, rampBars } from "../kit/index.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 0';

describe("results cache", () => {
  let server: Running | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("answers a repeated run from the cache, meters each request, and misses once the data version moves", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const first = await server.post("/xql/run", QUERY, key);
    const second = await server.post("/xql/run", QUERY, key);
    expect(await second.json()).toEqual(await first.json());
    expect(second.headers.get("x-ratelimit-remaining")).toBe("28");
    await server.store.upsertBars([
      { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "AUDUSD", bars: rampBars("h1", 400, barOpen("h1", NOW), 5) }] },
    ]);
    const third = (await (await server.post("/xql/run", QUERY, key)).json()) as { results: { symbol: string }[]; meta: { instruments: number } };
    expect(third.results.map((r) => r.symbol)).toContain("AUDUSD");
    expect(third.meta.instruments).toBe(4);
  });

  it("is bounded in bytes, evicting the least recently used on insert, and expires", () => {
    const cache = new ResultsCache(100, 1000);
    cache.set("a", 1, 0, "A", 40);
    cache.set("b", 1, 0, "B", 40);
    expect(cache.bytes).toBe(84); // 40 + 40 and the keys' 2 bytes each
    expect(cache.get("a", 1, 0)).toBe("A"); // a is now the most recently used
    cache.set("c", 1, 0, "C", 40);
    // Over 100 bytes: b, the least recently used, goes, though nobody read b again.
    expect(cache.size).toBe(2);
    expect(cache.get("b", 1, 0)).toBeUndefined();
    expect(cache.get("a", 1, 999)).toBe("A");
    expect(cache.get("a", 2, 999)).toBeUndefined();
    expect(cache.get("c", 1, 1000)).toBeUndefined();
    // An answer larger than the whole budget is never kept.
    cache.set("big", 1, 0, "x", 101);
    expect(cache.get("big", 1, 0)).toBeUndefined();
    expect(cache.bytes).toBeLessThanOrEqual(100);
  });
});
