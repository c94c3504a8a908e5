/**
 * What the FOREX sources share: the 28 major pairs in the market's spelling, the ways a pair may
 * be written, and the one client's request rate (OANDA's 120 a second) on an injected clock.
 */
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { FeedClient, boundedFetch } from "../../src/ingest/sync-http.js";
import { ForexSymbolError, MAJOR_PAIRS, forexPairs, parseForexPair } from "../../src/ingest/sync-forex.js";
import { roundLine } from "../../src/cli/commands/data-sync.js";
import { ManualClock } from "./sync-helpers.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe("FOREX pairs", () => {
  it("defaults to the 28 pairs of the eight majors, each written as the market writes it", () => {
    // The market's convention (EUR > GBP > AUD > NZD > USD > CAD > CHF > JPY), listed by hand.
    expect([...MAJOR_PAIRS].sort()).toEqual(
      [
        "EURUSD", "GBPUSD", "AUDUSD", "NZDUSD", "USDCAD", "USDCHF", "USDJPY",
        "EURGBP", "EURAUD", "EURNZD", "EURCAD", "EURCHF", "EURJPY",
        "GBPAUD", "GBPNZD", "GBPCAD", "GBPCHF", "GBPJPY",
        "AUDNZD", "AUDCAD", "AUDCHF", "AUDJPY",
        "NZDCAD", "NZDCHF", "NZDJPY",
        "CADCHF", "CADJPY", "CHFJPY",
      ].sort(),
    );
    expect(forexPairs(undefined, (b, q) => `${b}_${q}`)).toHaveLength(28);
  });

  it("reads EUR_USD, EUR-USD, EUR/USD and eurusd as one pair, stored EURUSD, once", () => {
    expect(forexPairs(["EUR_USD", "eur-usd", "EUR/USD", "eurusd", "USDJPY"], (b, q) => `${b}_${q}`)).toEqual([
      { symbol: "EUR_USD", stored: "EURUSD" },
      { symbol: "USD_JPY", stored: "USDJPY" },
    ]);
    expect(parseForexPair("usd_try")).toEqual({ base: "USD", quote: "TRY" });
    expect(() => parseForexPair("JPYUSD")).toThrow(new ForexSymbolError("'JPYUSD' is written the other way round by the market: did you mean USDJPY?"));
    expect(() => parseForexPair("EUREUR")).toThrow("'EUREUR' quotes EUR in itself");
  });

  it("names a --follow round's bar by its open time and timeframe, as xql watch does", () => {
    const bar = Date.UTC(2026, 11, 4, 23);
    expect(roundLine({ bar, close: bar + 3_600_000, written: 28, symbols: 28, lagMs: 2300, fetchMs: 0, writeMs: 0 }, "h1")).toBe(
      "h1 bar of 2026-12-04 23:00 UTC: 28 bars of 28 symbols written 2.3 s after its close\n",
    );
    expect(roundLine({ bar, close: bar + 3_600_000, written: 0, symbols: 0, lagMs: 0, fetchMs: 0, writeMs: 0 }, "h1")).toBe("h1 bar of 2026-12-04 23:00 UTC: no new bars\n");
  });
});

describe("the feed client", () => {
  it("starts at most perSecond requests a second, on the injected clock", async () => {
    let hits = 0;
    server = createServer((_request, response) => {
      hits++;
      response.writeHead(200, { "content-type": "application/json" }).end("[]");
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const clock = new ManualClock(0);
    const client = new FeedClient("test", { perSecond: 120, clock });
    await Promise.all(Array.from({ length: 241 }, () => client.run("a page", (signal) => client.get(url, {}, signal))));
    expect(hits).toBe(241);
    // 241 starts at 1000/120 ms apart: the last two seconds after the first.
    expect(clock.now()).toBeGreaterThanOrEqual(2000 - 1e-6);
    expect(client.requests).toBe(241);
  });

  it("does not follow a redirect: a failed request naming where it led", async () => {
    server = createServer((_request, response) => response.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end());
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect(boundedFetch(url, { method: "GET" }, { timeoutMs: 5000, maxBytes: 1024 })).rejects.toMatchObject({
      kind: "bad-reply",
      message: "HTTP 302 redirect to http://127.0.0.1:1/elsewhere, not followed",
    });
  });

  it("leaves no listener on the caller's stop signal once a request is done (a long --follow makes thousands)", async () => {
    server = createServer((_request, response) => response.writeHead(200, { "content-type": "application/json" }).end("[]"));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const stop = new AbortController();
    for (let i = 0; i < 25; i++) {
      const reply = await boundedFetch(url, { method: "GET" }, { signal: stop.signal, timeoutMs: 5000, maxBytes: 1024 });
      expect(reply.status).toBe(200);
    }
    expect(getEventListeners(stop.signal, "abort")).toHaveLength(0);
    // And the stop still aborts a request in flight.
    server.close();
    server = createServer(() => stop.abort());
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const held = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect(boundedFetch(held, { method: "GET" }, { signal: stop.signal, timeoutMs: 60_000, maxBytes: 1024 })).rejects.toBeDefined();
    expect(getEventListeners(stop.signal, "abort")).toHaveLength(0);
  });
});
