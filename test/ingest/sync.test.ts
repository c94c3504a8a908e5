/**
 * `syncBars` with the real ccxt (binance) against a local stand-in for Binance's REST API,
 * writing into a real SQLite file: values as served, closed bars only, resuming at both ends of
 * what is stored, refilling after downtime, holes, rate limits and dropped connections,
 * `--top`'s choice, and `--follow` on a clock that moves when the sync sleeps.
 */
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openExchange, retryAfterMs } from "../../src/ingest/sync-exchange.js";
import { choosePairs, isLeveragedToken } from "../../src/ingest/sync-symbols.js";
import { type FollowRound, syncBars } from "../../src/ingest/sync.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir, until } from "../kit/index.js";
import type { ExchangeStandIn, StandInPair } from "./exchange-stand-in.js";
import { MINUTE, ManualClock, servedBars, servedTimes, standIn, storedBars } from "./sync-helpers.js";

/** 2026-11-20 13:25:30 UTC: the m1 bar of 13:25 is open. */
const NOW = Date.UTC(2026, 10, 20, 13, 25, 30);
/** Open time of the bar open at NOW. */
const OPEN = Date.UTC(2026, 10, 20, 13, 25);
const PAIRS: StandInPair[] = [
  { base: "BTC", quote: "USDT" },
  { base: "ETH", quote: "USDT" },
  { base: "SOL", quote: "USDT" },
];

let dir: string;
let cleanup: () => void;
let store: SqliteStore;
let exchange: ExchangeStandIn | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  store = new SqliteStore(join(dir, "sync.db"));
});
afterEach(async () => {
  // Every request ccxt made was one the stand-in answers as Binance documents it.
  expect(exchange?.unanswered ?? []).toEqual([]);
  await exchange?.stop();
  exchange = undefined;
  await store.close();
  cleanup();
});

async function sync(clock: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> }, options: { since?: number; symbols?: string[]; follow?: boolean; signal?: AbortSignal; onRound?: (r: FollowRound) => void; notices?: string[]; retries?: string[] } = {}) {
  const binance = await openExchange("binance", { apiUrl: exchange!.url, baseDelayMs: 200, onRetry: (line) => options.retries?.push(line) });
  const pairs = choosePairs("binance", await binance.spotMarkets(), { kind: "named", symbols: options.symbols ?? ["BTC/USDT", "ETH/USDT", "SOL/USDT"] });
  return syncBars({
    source: binance,
    store,
    pairs,
    timeframe: "m1",
    since: options.since,
    follow: options.follow,
    signal: options.signal,
    clock,
    onRound: options.onRound,
    onNotice: (line) => options.notices?.push(line),
  });
}

describe("data sync", () => {
  it("stores every closed bar since --since with the values served, never the open one, in batches across pairs", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS, () => clock.now());
    const since = OPEN - 1500 * MINUTE;
    const report = await sync(clock, { since });
    const latest = Math.floor(NOW / MINUTE) * MINUTE - MINUTE;
    for (const { base, quote } of PAIRS) {
      const symbol = `${base}${quote}`;
      const expected = exchange.closedTimes(symbol, "1m", since, latest);
      expect(expected).toHaveLength(1500);
      expect(await storedBars(store, symbol)).toEqual(servedBars(symbol, expected));
    }
    // The open bar was served (Binance sends it last) but is not stored.
    expect(exchange.klines.some((k) => k.open !== undefined)).toBe(false);
    expect(report).toMatchObject({ written: 4500, replaced: 0, failed: [], refused: 0, stopped: false });
    // Newest page of every pair first, then the older one: two batches, each one write across the
    // three pairs. A batch's requests run concurrently, so their order within it is the network's.
    const pages = exchange.klines.map((k) => [k.symbol, k.startTime, k.limit] as const);
    const byPair = (a: readonly [string, number, number], b: readonly [string, number, number]) => a[0].localeCompare(b[0]);
    expect([...pages.slice(0, 3).sort(byPair), ...pages.slice(3).sort(byPair)]).toEqual([
      ["BTCUSDT", latest - 999 * MINUTE, 1000],
      ["ETHUSDT", latest - 999 * MINUTE, 1000],
      ["SOLUSDT", latest - 999 * MINUTE, 1000],
      ["BTCUSDT", since, 500],
      ["ETHUSDT", since, 500],
      ["SOLUSDT", since, 500],
    ]);
    expect(report.writes).toBe(2);
    expect(exchange.requests.filter((r) => !r.includes("/klines"))).toEqual(["GET /api/v3/exchangeInfo"]);
  });

  it("never writes a bar still open, even from an exchange that answers past the limit asked", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS.slice(0, 1), () => clock.now());
    // Like Kraken, every bar from startTime on, the open one last with its values so far.
    exchange.ignoreLimit = true;
    await sync(clock, { since: OPEN - 10 * MINUTE, symbols: ["BTC/USDT"] });
    clock.t = NOW + 3 * MINUTE;
    await sync(clock, { symbols: ["BTC/USDT"], since: OPEN - 10 * MINUTE });
    const open = exchange.klines.map((k) => k.open).filter((t) => t !== undefined);
    expect(open.length).toBeGreaterThan(0);
    const stored = await storedBars(store, "BTCUSDT");
    const latest = Math.floor(clock.t / MINUTE) * MINUTE - MINUTE;
    expect(stored.at(-1)!.time).toBe(latest);
    expect(stored).toEqual(servedBars("BTCUSDT", exchange.closedTimes("BTCUSDT", "1m", OPEN - 10 * MINUTE, latest, clock.t)));
  });

  it("resumes at both ends of what is stored: the bars closed since, then older ones back to an earlier --since, nothing fetched twice", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS, () => clock.now());
    const first = await sync(clock, { since: OPEN - 300 * MINUTE });
    expect(first.written).toBe(900);
    const storedBefore = new Map<string, number[]>();
    for (const p of PAIRS) storedBefore.set(`${p.base}${p.quote}`, (await storedBars(store, `${p.base}${p.quote}`)).map((b) => b.time));
    const answered = exchange.klines.length;

    // 90 minutes of downtime, and now history from two days back.
    clock.t = NOW + 90 * MINUTE;
    const since = OPEN - 2 * 1440 * MINUTE;
    const second = await sync(clock, { since });
    const latest = Math.floor(clock.t / MINUTE) * MINUTE - MINUTE;
    for (const p of PAIRS) {
      const symbol = `${p.base}${p.quote}`;
      expect(await storedBars(store, symbol)).toEqual(servedBars(symbol, exchange.closedTimes(symbol, "1m", since, latest, clock.t)));
      const again = servedTimes(exchange, symbol, answered).filter((t) => storedBefore.get(symbol)!.includes(t));
      expect(again, `${symbol} bars fetched twice`).toEqual([]);
    }
    expect(second.written).toBe(3 * (2 * 1440 + 90) - first.written);
    // The 90 minutes closed first (one short page each), then the backfill newest first.
    const secondRequests = exchange.klines.slice(answered);
    expect(secondRequests.slice(0, 3).map((k) => [k.startTime, k.limit])).toEqual(Array(3).fill([Math.floor(NOW / MINUTE) * MINUTE, 90]));

    // A sync with nothing new fetches nothing at all.
    const before = exchange.klines.length;
    const third = await sync(clock, { since });
    expect(third.written).toBe(0);
    expect(exchange.klines.length).toBe(before);
  });

  it("--until ends a backfill: no bar opening at or after it is fetched or written, and a later sync extends the run from there", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS.slice(0, 1), () => clock.now());
    const since = OPEN - 600 * MINUTE;
    const until = OPEN - 200 * MINUTE;
    const binance = await openExchange("binance", { apiUrl: exchange.url });
    const pairs = choosePairs("binance", await binance.spotMarkets(), { kind: "named", symbols: ["BTC/USDT"] });
    const report = await syncBars({ source: binance, store, pairs, timeframe: "m1", since, until, clock });
    expect(report.written).toBe(400);
    expect(await storedBars(store, "BTCUSDT")).toEqual(servedBars("BTCUSDT", exchange.closedTimes("BTCUSDT", "1m", since, until - MINUTE)));
    for (const k of exchange.klines) expect(k.startTime + (k.limit - 1) * MINUTE).toBeLessThan(until);
    await syncBars({ source: binance, store, pairs, timeframe: "m1", since, clock });
    const latest = Math.floor(NOW / MINUTE) * MINUTE - MINUTE;
    expect(await storedBars(store, "BTCUSDT")).toEqual(servedBars("BTCUSDT", exchange.closedTimes("BTCUSDT", "1m", since, latest)));
  });

  it("refills a deleted tail and leaves the exchange's own holes alone, asking for them once", async () => {
    const clock = new ManualClock(NOW);
    const holes = [OPEN - 100 * MINUTE, OPEN - 99 * MINUTE];
    exchange = await standIn([{ base: "BTC", quote: "USDT", holes }], () => clock.now());
    const since = OPEN - 400 * MINUTE;
    await sync(clock, { since, symbols: ["BTC/USDT"] });
    const latest = Math.floor(NOW / MINUTE) * MINUTE - MINUTE;
    const all = exchange.closedTimes("BTCUSDT", "1m", since, latest);
    expect(all).toHaveLength(398);
    expect(all).not.toContain(holes[0]);
    expect(await storedBars(store, "BTCUSDT")).toEqual(servedBars("BTCUSDT", all));

    await store.deleteBars({ symbol: "BTCUSDT", from: OPEN - 30 * MINUTE });
    const answered = exchange.klines.length;
    await sync(clock, { since, symbols: ["BTC/USDT"] });
    expect(await storedBars(store, "BTCUSDT")).toEqual(servedBars("BTCUSDT", all));
    // Only the deleted stretch was asked for again, not the holes inside the stored run.
    expect(exchange.klines.slice(answered).map((k) => [k.startTime, k.limit])).toEqual([[OPEN - 30 * MINUTE, 30]]);
  });

  it("waits out a 429 as its Retry-After says and survives dropped connections, saying so", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS, () => clock.now());
    const retries: string[] = [];
    // The waits (Retry-After, backoff) are the clock's: they move it on, not the wall's time.
    const binance = await openExchange("binance", { apiUrl: exchange.url, baseDelayMs: 100, clock, onRetry: (line) => retries.push(line) });
    const pairs = choosePairs("binance", await binance.spotMarkets(), { kind: "quote", quote: "USDT" });
    const stamps: number[] = [];
    exchange.onKlines = () => stamps.push(clock.now());
    exchange.limitNext(2, 429, "1");
    const limitedAt = clock.now();
    const since = OPEN - 200 * MINUTE;
    await syncBars({ source: binance, store, pairs, timeframe: "m1", since, clock });
    // Retry-After: 1 — no answer came sooner than a second after the 429s.
    expect(stamps[0]! - limitedAt).toBeGreaterThanOrEqual(1000);
    expect(retries[0]).toMatch(/^binance is limiting requests \(HTTP 429\); waiting 1\.0 s as its Retry-After says, then retrying [A-Z]+\/USDT m1 candles$/);

    exchange.dropNext(3);
    clock.t = NOW + 20 * MINUTE;
    await syncBars({ source: binance, store, pairs, timeframe: "m1", since, clock });
    expect(retries.some((r) => /^binance did not answer \(.+\); retrying [A-Z]+\/USDT m1 candles in 0\.[1-4] s \(attempt 2 of 8\)$/.test(r))).toBe(true);

    exchange.limitNext(1, 418, "Thu, 01 Jan 1970 00:00:00 GMT");
    clock.t = NOW + 40 * MINUTE;
    await syncBars({ source: binance, store, pairs, timeframe: "m1", since, clock });
    expect(retries.some((r) => r.startsWith("binance is limiting requests (HTTP 418)"))).toBe(true);
    const latest = Math.floor(clock.t / MINUTE) * MINUTE - MINUTE;
    for (const p of PAIRS) {
      const symbol = `${p.base}${p.quote}`;
      expect(await storedBars(store, symbol)).toEqual(servedBars(symbol, exchange.closedTimes(symbol, "1m", since, latest, clock.t)));
    }
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3", 0)).toBe(3000);
    expect(retryAfterMs("0.5", 0)).toBe(500);
    expect(retryAfterMs("Thu, 01 Jan 1970 00:00:10 GMT", 4000)).toBe(6000);
    expect(retryAfterMs("soon", 0)).toBeUndefined();
    expect(retryAfterMs(undefined, 0)).toBeUndefined();
  });

  it("--quote with --top: the most traded by 24 h quote volume, without stablecoin pairs, leveraged tokens or halted pairs", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(
      [
        { base: "BTC", quote: "USDT", quoteVolume: 5e9 },
        { base: "ETH", quote: "USDT", quoteVolume: 3e9 },
        { base: "USDC", quote: "USDT", quoteVolume: 9e9 },
        { base: "FDUSD", quote: "USDT", quoteVolume: 8.5e9 },
        { base: "BTCUP", quote: "USDT", quoteVolume: 8e9 },
        { base: "ETHBEAR", quote: "USDT", quoteVolume: 7.5e9 },
        { base: "XRP", quote: "USDT", quoteVolume: 7e9, status: "BREAK" },
        { base: "JUP", quote: "USDT", quoteVolume: 2e9 },
        { base: "SOL", quote: "USDT", quoteVolume: 1e9 },
        { base: "ETH", quote: "BTC", quoteVolume: 1e12 },
      ],
      () => clock.now(),
    );
    const binance = await openExchange("binance", { apiUrl: exchange.url });
    const markets = await binance.spotMarkets();
    const volumes = await binance.quoteVolumes();
    const top = choosePairs("binance", markets, { kind: "quote", quote: "usdt", top: 3 }, volumes);
    expect(top).toEqual([
      { symbol: "BTC/USDT", stored: "BTCUSDT" },
      { symbol: "ETH/USDT", stored: "ETHUSDT" },
      { symbol: "JUP/USDT", stored: "JUPUSDT" },
    ]);
    expect(choosePairs("binance", markets, { kind: "quote", quote: "USDT" }).map((p) => p.stored)).toEqual(["BTCUSDT", "ETHUSDT", "JUPUSDT", "SOLUSDT"]);
    expect(exchange.requests).toContain("GET /api/v3/ticker/24hr");
    expect(() => choosePairs("binance", markets, { kind: "named", symbols: ["BTC/USDTT"] })).toThrow(
      "binance has no spot pair 'BTC/USDTT', did you mean 'BTC/USDT'? (pairs are written BASE/QUOTE, e.g. BTC/USDT)",
    );
    expect(() => choosePairs("binance", markets, { kind: "named", symbols: ["XRP/USDT"] })).toThrow("XRP/USDT is not trading on binance");
    expect(() => choosePairs("binance", markets, { kind: "quote", quote: "USTD" })).toThrow("binance has no trading spot pair quoted in USTD, did you mean USDT?");
    // Named pairs may be written as stored too.
    expect(choosePairs("binance", markets, { kind: "named", symbols: ["btcusdt", "ETH/BTC"] })).toEqual([
      { symbol: "BTC/USDT", stored: "BTCUSDT" },
      { symbol: "ETH/BTC", stored: "ETHBTC" },
    ]);
  });

  it("tells leveraged tokens from coins that merely end like one", () => {
    const bases = new Set(["BTC", "ETH", "J", "SYR", "XRP"]);
    expect(isLeveragedToken("BTCUP", bases)).toBe(true);
    expect(isLeveragedToken("ETHDOWN", bases)).toBe(true);
    expect(isLeveragedToken("XRPBULL", bases)).toBe(true);
    expect(isLeveragedToken("BTC3L", bases)).toBe(true);
    expect(isLeveragedToken("ETH5S", bases)).toBe(true);
    // JUP: "J" is too short to be the underlying; SYRUP's "SYR" is listed here, but UP on a three-letter stem is a real coin elsewhere too.
    expect(isLeveragedToken("JUP", bases)).toBe(false);
    expect(isLeveragedToken("SOLUP", bases)).toBe(false);
    expect(isLeveragedToken("BTC", bases)).toBe(false);
  });

  it("--follow writes each new close of every pair, and stops after the batch in hand", async () => {
    // The clock moves only when the sync sleeps: each round wakes at a close plus the settling delay.
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS, () => clock.now());
    const controller = new AbortController();
    const rounds: FollowRound[] = [];
    const since = OPEN - 60 * MINUTE;
    const report = await sync(clock, {
      since,
      follow: true,
      signal: controller.signal,
      onRound: (round) => {
        rounds.push(round);
        if (rounds.length === 3) controller.abort();
      },
    });
    expect(report.stopped).toBe(true);
    const closes = rounds.map((r) => r.close);
    const firstClose = closes[0]!;
    expect(closes).toEqual([firstClose, firstClose + MINUTE, firstClose + 2 * MINUTE]);
    for (const round of rounds) {
      expect(round).toMatchObject({ written: 3, symbols: 3 });
      // Each bar is written after its close plus the settling delay, never before.
      expect(round.lagMs).toBeGreaterThanOrEqual(2000);
    }
    const latest = firstClose + 2 * MINUTE - MINUTE;
    for (const p of PAIRS) {
      const symbol = `${p.base}${p.quote}`;
      const stored = await storedBars(store, symbol);
      expect(stored.at(-1)!.time).toBe(latest);
      expect(stored).toEqual(servedBars(symbol, exchange.closedTimes(symbol, "1m", since, latest, latest + MINUTE)));
    }
  });
});

describe("data sync bounds (issue 33): what a hostile or broken --api-url can do", () => {
  async function open(clock: ManualClock, options: Parameters<typeof openExchange>[1] = {}, retries: string[] = []) {
    const binance = await openExchange("binance", { apiUrl: exchange!.url, baseDelayMs: 100, clock, onRetry: (line) => retries.push(line), ...options });
    const pairs = choosePairs("binance", await binance.spotMarkets(), { kind: "named", symbols: ["BTC/USDT"] });
    return { binance, pairs };
  }

  it("an HTML page where JSON was expected is a failed request said on a line, never a silent success", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS.slice(0, 1), () => clock.now());
    const retries: string[] = [];
    const notices: string[] = [];
    const { binance, pairs } = await open(clock, { attempts: 2 }, retries);
    exchange.htmlNext(2);
    const report = await syncBars({ source: binance, store, pairs, timeframe: "m1", since: OPEN - 10 * MINUTE, clock, onNotice: (line) => notices.push(line) });
    expect(retries).toEqual([
      "binance sent a reply a sync cannot use: binance's JSON expected, an HTML page came (HTTP 200: '<!DOCTYPE html><html><head><title>Attention Required!</title></head><body>blocke…'); retrying BTC/USDT m1 candles in 0.1 s (attempt 2 of 2)",
    ]);
    expect(notices).toEqual([expect.stringMatching(/^BTC\/USDT: binance's JSON expected, an HTML page came .*; left for the next sync$/)]);
    expect(report.failed.map((f) => f.symbol)).toEqual(["BTC/USDT"]);
    expect(report.written).toBe(0);
  });

  it("says at once that an --api-url refusing connections cannot be reached, and keeps retrying", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const retries: string[] = [];
    const binance = await openExchange("binance", { apiUrl: `http://${host}`, baseDelayMs: 100, attempts: 3, clock: new ManualClock(NOW), onRetry: (line) => retries.push(line) });
    await expect(binance.spotMarkets()).rejects.toMatchObject({ kind: "unreachable" });
    expect(retries).toEqual([
      `binance: cannot reach ${host} (connection refused) (check --api-url and the network); retrying loading markets in 0.1 s (attempt 2 of 3)`,
      `binance: cannot reach ${host} (connection refused); retrying loading markets in 0.2 s (attempt 3 of 3)`,
    ]);
  });

  it("cuts a reply larger than the bound (64 MiB; here 1 MiB) and retries it as a failed request", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS.slice(0, 1), () => clock.now());
    const retries: string[] = [];
    const { binance, pairs } = await open(clock, { maxReplyBytes: 1024 * 1024 }, retries);
    exchange.hugeNext(16 * 1024 * 1024);
    const report = await syncBars({ source: binance, store, pairs, timeframe: "m1", since: OPEN - 10 * MINUTE, clock });
    expect(retries).toEqual(["binance sent a reply a sync cannot use: the reply is larger than 1 MiB; cut off there; retrying BTC/USDT m1 candles in 0.1 s (attempt 2 of 8)"]);
    expect(report.written).toBe(10);
  });

  it("waits at most 5 minutes for a Retry-After of 100000 s, and says so", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS.slice(0, 1), () => clock.now());
    const retries: string[] = [];
    const { binance, pairs } = await open(clock, {}, retries);
    exchange.limitNext(1, 429, "100000");
    const before = clock.now();
    const report = await syncBars({ source: binance, store, pairs, timeframe: "m1", since: OPEN - 10 * MINUTE, clock });
    expect(retries).toEqual(["binance is limiting requests (HTTP 429); its Retry-After asks for 100000 s, more than a sync waits: waiting 5 min, then retrying BTC/USDT m1 candles"]);
    expect(clock.now() - before).toBe(300_000);
    expect(report.failed).toEqual([]);
  });

  it("a server that never answers is given up after the timeout; a stop request ends the wait on it, or on a Retry-After, at once", async () => {
    const clock = new ManualClock(NOW);
    exchange = await standIn(PAIRS.slice(0, 1), () => clock.now());
    const retries: string[] = [];
    const { binance, pairs } = await open(clock, { timeoutMs: 300 }, retries);
    exchange.hangNext(1);
    await syncBars({ source: binance, store, pairs, timeframe: "m1", since: OPEN - 10 * MINUTE, clock });
    expect(retries[0]).toMatch(/^binance did not answer \(.*\); retrying BTC\/USDT m1 candles in 0\.1 s \(attempt 2 of 8\)$/);

    // Stopped while a request hangs: resolved within the grace, as stopped, nothing failed.
    const hung = new AbortController();
    const waiting = await open(clock, { stop: hung.signal, stopGraceMs: 100 });
    exchange.hangNext(1);
    exchange.onKlines = undefined;
    clock.t += 5 * MINUTE;
    const pending = syncBars({ source: waiting.binance, store, pairs: waiting.pairs, timeframe: "m1", since: OPEN - 10 * MINUTE, clock, signal: hung.signal });
    await until(() => exchange!.requests.some((r) => r.includes("/klines") && r.includes("limit=5")), { what: "the hanging request" });
    hung.abort();
    const stopped = await pending;
    expect(stopped).toMatchObject({ stopped: true, failed: [] });

    // Stopped while waiting out a Retry-After (on the wall clock: the stop must end a real wait).
    const limited = new AbortController();
    const said: string[] = [];
    const real = await open(clock, { stop: limited.signal, clock: undefined }, said);
    exchange.limitNext(1, 429, "100000");
    clock.t += 5 * MINUTE;
    const lines: string[] = [];
    const pendingLimited = syncBars({ source: real.binance, store, pairs: real.pairs, timeframe: "m1", since: OPEN - 10 * MINUTE, clock, signal: limited.signal, onNotice: (l) => lines.push(l) });
    await until(() => said.some((line) => line.includes("waiting 5 min")), { what: "the wait announced" });
    const stoppedAt = performance.now();
    limited.abort();
    expect(await pendingLimited).toMatchObject({ stopped: true, failed: [] });
    // The 5-minute wait ended with the stop, not with the wait.
    expect(performance.now() - stoppedAt).toBeLessThan(2000);
    expect(lines).toEqual([]);
  });
});
