/**
 * `syncBars` with the OANDA source against a local stand-in of OANDA's v20 candles endpoint,
 * writing into a real SQLite file: the values served (bid, ask, mid, a yen pair), weekends
 * absent, days derived on 17:00 New York across both 2025 daylight-saving changes, pages within
 * the 5,000-candle count, and every failure a request can meet (401, 429 with Retry-After,
 * 5xx, HTML, malformed JSON, a reply above the bound, a server that never answers, a candle
 * not complete), each said on a line and none a silent success.
 */
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FeedRequestError } from "../../src/ingest/sync-http.js";
import { forexPairs } from "../../src/ingest/sync-forex.js";
import { OandaSource, oandaInstrument } from "../../src/ingest/sync-oanda.js";
import { type FollowRound, syncBars } from "../../src/ingest/sync.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";
import { MINUTE, ManualClock, storedBars } from "./sync-helpers.js";
import { GRANULARITY_MS, OandaStandIn, type Side, candleOpens, marketOpen, servedPrices, servedVolume } from "./oanda-stand-in.js";

const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TOKEN = "test-token-5c0f1e";
/** Wednesday 2025-11-12 13:25:30 UTC. */
const NOW = Date.UTC(2025, 10, 12, 13, 25, 30);
/** The hour open at NOW, for `since` on a bar boundary (the bar open at `since` is the first synced). */
const OPEN_HOUR = Date.UTC(2025, 10, 12, 13);

let dir: string;
let cleanup: () => void;
let store: SqliteStore;
let oanda: OandaStandIn | undefined;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  store = new SqliteStore(join(dir, "fx.db"));
});
afterEach(async () => {
  await oanda?.stop();
  oanda = undefined;
  await store.close();
  cleanup();
});

async function standIn(now: () => number, token = TOKEN): Promise<OandaStandIn> {
  oanda = new OandaStandIn(token, now);
  await oanda.start();
  return oanda;
}

interface Run {
  clock: { now(): number; sleep(ms: number, signal: AbortSignal): Promise<void> };
  symbols?: string[];
  timeframe?: "m1" | "m15" | "h1" | "h4";
  price?: Side;
  since?: number;
  until?: number;
  follow?: boolean;
  signal?: AbortSignal;
  token?: string;
  notices?: string[];
  retries?: string[];
  rounds?: FollowRound[];
  onRound?: (round: FollowRound) => void;
  source?: Partial<ConstructorParameters<typeof OandaSource>[0]>;
}

function sync(run: Run) {
  const source = new OandaSource({
    token: run.token ?? TOKEN,
    price: run.price ?? "bid",
    apiUrl: oanda!.url,
    clock: run.clock,
    baseDelayMs: 100,
    stop: run.signal,
    onRetry: (line) => run.retries?.push(line),
    ...run.source,
  });
  return syncBars({
    source,
    store,
    pairs: forexPairs(run.symbols ?? ["EUR_USD"], oandaInstrument),
    timeframe: run.timeframe ?? "h1",
    since: run.since,
    until: run.until,
    follow: run.follow,
    signal: run.signal,
    clock: run.clock,
    onNotice: (line) => run.notices?.push(line),
    onRound: (round) => {
      run.rounds?.push(round);
      run.onRound?.(round);
    },
  });
}

/** What the stand-in serves of `instrument` at these open times, as the store should hold it. */
function served(instrument: string, granularity: string, times: readonly number[], side: Side = "bid") {
  return times.map((time) => {
    const p = servedPrices(instrument, granularity, time, side);
    return { time, open: Number(p.o), high: Number(p.h), low: Number(p.l), close: Number(p.c), volume: servedVolume(instrument, time) };
  });
}

describe("data sync oanda", () => {
  it("stores every complete h1 candle as served, a yen pair to three decimals, weekends absent, in pages within the count", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const since = OPEN_HOUR - 20 * DAY;
    const report = await sync({ clock, symbols: ["EUR_USD", "USD-JPY"], since });
    expect(report.failed).toEqual([]);
    const latest = Math.floor(NOW / HOUR) * HOUR - HOUR;
    for (const [instrument, symbol] of [
      ["EUR_USD", "EURUSD"],
      ["USD_JPY", "USDJPY"],
    ] as const) {
      const times = oanda!.candleTimes(instrument, "H1", since, latest);
      // 20 days hold three weekends, 48 closed hours each but 49 for the one when New York's clocks went back.
      expect(times.length).toBe(20 * 24 - 3 * 48 - 1);
      const stored = await storedBars(store, symbol, "h1", "FOREX");
      expect(stored).toEqual(served(instrument, "H1", times));
      expect(stored.every((b) => marketOpen(b.time))).toBe(true);
    }
    expect(String((await storedBars(store, "USDJPY", "h1", "FOREX"))[0]!.close)).toMatch(/^\d+\.\d{1,3}$/);
    for (const page of oanda!.served) expect(Number(page.params.count)).toBeLessThanOrEqual(5000);
    // Where the bars came from, for `xql data status`.
    expect((await store.feeds("FOREX")).map((f) => [f.symbol, f.timeframe, f.source, f.price])).toEqual([
      ["EURUSD", "h1", "oanda", "bid"],
      ["USDJPY", "h1", "oanda", "bid"],
    ]);
  });

  for (const price of ["ask", "mid"] as const) {
    it(`--price ${price}: the ${price} candles, digit for digit`, async () => {
      const clock = new ManualClock(NOW);
      await standIn(() => clock.now());
      const since = OPEN_HOUR - 2 * DAY;
      await sync({ clock, symbols: ["GBP_JPY", "EURUSD"], timeframe: "m15", price, since });
      const latest = Math.floor(NOW / (15 * MINUTE)) * 15 * MINUTE - 15 * MINUTE;
      for (const [instrument, symbol] of [
        ["GBP_JPY", "GBPJPY"],
        ["EUR_USD", "EURUSD"],
      ] as const) {
        const stored = await storedBars(store, symbol, "m15", "FOREX");
        expect(stored).toEqual(served(instrument, "M15", oanda!.candleTimes(instrument, "M15", since, latest), price));
      }
      expect(oanda!.served.every((s) => s.params.price === (price === "ask" ? "A" : "M"))).toBe(true);
    });
  }

  it("derives days on 17:00 New York across both 2025 daylight-saving changes, and h4 bars on its grid", async () => {
    for (const [from, to] of [
      // Sunday 17:00 to Friday 17:00 New York, twice: the US clocks went forward on 9 March and back on 2 November.
      [Date.UTC(2025, 2, 2, 22), Date.UTC(2025, 2, 14, 21)],
      [Date.UTC(2025, 9, 26, 21), Date.UTC(2025, 10, 7, 22)],
    ]) {
      const clock = new ManualClock(NOW);
      await standIn(() => clock.now());
      await sync({ clock, since: from, until: to });
      await oanda!.stop();
    }
    const hours = await storedBars(store, "EURUSD", "h1", "FOREX");
    const days = await storedBars(store, "EURUSD", "d", "FOREX");
    // Ten trading days in each fortnight.
    expect(days.length).toBe(20);
    for (const [i, day] of days.entries()) {
      // 17:00 New York: 22:00 UTC in winter, 21:00 UTC from 9 March to 2 November 2025.
      const summer = day.time >= Date.UTC(2025, 2, 9, 7) && day.time < Date.UTC(2025, 10, 2, 6);
      expect(new Date(day.time).getUTCHours(), new Date(day.time).toISOString()).toBe(summer ? 21 : 22);
      const next = days[i + 1]?.time ?? Infinity;
      const inside = hours.filter((h) => h.time >= day.time && h.time < Math.min(next, day.time + DAY));
      expect(inside.length).toBe(24);
      expect(day.open).toBe(inside[0]!.open);
      expect(day.close).toBe(inside.at(-1)!.close);
      expect(day.high).toBe(Math.max(...inside.map((h) => h.high)));
      expect(day.low).toBe(Math.min(...inside.map((h) => h.low)));
    }
    // The h4 bars derived from h1 open where OANDA's own H4 candles open (17:00 New York and every 4 h).
    const h4 = await storedBars(store, "EURUSD", "h4", "FOREX");
    expect(h4.length).toBe(120);
    expect(h4.every((b) => candleOpens(b.time, "H4"))).toBe(true);
  });

  it("stores h4 candles as OANDA aligns them, and asks in pages of at most 5,000 (the stand-in refuses more, as OANDA does)", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const refused = await fetch(`${oanda!.url}/v3/instruments/EUR_USD/candles?granularity=M1&count=5001`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errorMessage: "Invalid value specified for 'count'. Maximum value is 5000." });

    const since = OPEN_HOUR - 12 * DAY;
    await sync({ clock, timeframe: "m1", since });
    const latest = Math.floor(NOW / MINUTE) * MINUTE - MINUTE;
    const times = oanda!.candleTimes("EUR_USD", "M1", since, latest);
    expect(await storedBars(store, "EURUSD", "m1", "FOREX")).toEqual(served("EUR_USD", "M1", times));
    // The floor: ⌈candles / 5,000⌉ requests (the count skips the weekend), and one more that finds the history's start.
    expect(oanda!.served.length).toBeLessThanOrEqual(Math.ceil(times.length / 5000) + 1);

    // Wednesday 2025-10-15 21:00 UTC: 17:00 New York, an h4 open.
    const h4Since = Date.UTC(2025, 9, 15, 21);
    await sync({ clock, timeframe: "h4", since: h4Since, symbols: ["AUD_NZD"] });
    const stored = await storedBars(store, "AUDNZD", "h4", "FOREX");
    expect(stored).toEqual(served("AUD_NZD", "H4", oanda!.candleTimes("AUD_NZD", "H4", h4Since, NOW)));
    expect(stored.length).toBeGreaterThan(100);
    expect(stored.every((b) => candleOpens(b.time, "H4"))).toBe(true);
  });

  it("a 401 ends the sync saying the token was refused, never showing it", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const error = await sync({ clock, token: "wrong-token-1234", since: NOW - DAY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedRequestError);
    expect((error as FeedRequestError).kind).toBe("refused");
    expect((error as Error).message).toMatch(/^OANDA refused the token in OANDA_API_TOKEN \(HTTP 401: .*Insufficient authorization.*\); check it is a v20 API token of a practice account \(--live for a live account's\)$/);
    expect((error as Error).message).not.toContain("wrong-token-1234");
  });

  it("waits out 429s as Retry-After says, capping a Retry-After of 100000 s at 5 minutes, and retries 5xx, HTML and malformed JSON, saying so", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const retries: string[] = [];
    oanda!.failNext({ kind: "status", status: 429, retryAfter: "3" }, { kind: "status", status: 429, retryAfter: "100000" }, { kind: "status", status: 503 }, { kind: "html" }, { kind: "malformed" });
    const before = clock.now();
    const report = await sync({ clock, since: OPEN_HOUR - 2 * DAY, retries });
    expect(report.failed).toEqual([]);
    expect(retries).toEqual([
      "oanda is limiting requests (HTTP 429); waiting 3.0 s as its Retry-After says, then retrying EUR_USD h1 candles",
      "oanda is limiting requests (HTTP 429); its Retry-After asks for 100000 s, more than a sync waits: waiting 5 min, then retrying EUR_USD h1 candles",
      "oanda failed to answer (HTTP 503); retrying EUR_USD h1 candles in 0.1 s (attempt 4 of 8)",
      expect.stringMatching(/^oanda sent a reply a sync cannot use: OANDA's candles JSON expected, an HTML page came \(HTTP 200: '<!DOCTYPE html>.*'\); retrying EUR_USD h1 candles in 0\.2 s \(attempt 5 of 8\)$/),
      expect.stringMatching(/^oanda sent a reply a sync cannot use: OANDA's candles JSON expected, malformed JSON came .*; retrying EUR_USD h1 candles in 0\.4 s \(attempt 6 of 8\)$/),
    ]);
    // The injected clock waited 3 s, then 5 minutes, not 100000 s.
    expect(clock.now() - before).toBeGreaterThanOrEqual(303_000);
    expect(clock.now() - before).toBeLessThan(310_000);
    const latest = Math.floor(NOW / HOUR) * HOUR - HOUR;
    expect(await storedBars(store, "EURUSD", "h1", "FOREX")).toEqual(served("EUR_USD", "H1", oanda!.candleTimes("EUR_USD", "H1", OPEN_HOUR - 2 * DAY, latest)));
  });

  it("reads a Retry-After given as a date against the sync's clock, not the wall's", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const retries: string[] = [];
    // An HTTP date 7 s after the sync's now (whole seconds, as the header's format has them).
    const at = Math.ceil(NOW / 1000) * 1000 + 7_000;
    oanda!.failNext({ kind: "status", status: 429, retryAfter: new Date(at).toUTCString() });
    const report = await sync({ clock, since: NOW - DAY, retries });
    expect(report.failed).toEqual([]);
    expect(retries).toEqual([`oanda is limiting requests (HTTP 429); waiting ${((at - NOW) / 1000).toFixed(1)} s as its Retry-After says, then retrying EUR_USD h1 candles`]);
  });

  it("a reply that stays bad fails the pair, said on a line, never an empty success", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const notices: string[] = [];
    oanda!.failNext({ kind: "html" }, { kind: "html" });
    const report = await sync({ clock, since: NOW - DAY, notices, source: { attempts: 2 } });
    expect(report.written).toBe(0);
    expect(report.failed.map((f) => f.symbol)).toEqual(["EUR_USD"]);
    expect(notices).toEqual([expect.stringMatching(/^EUR_USD: OANDA's candles JSON expected, an HTML page came .*; left for the next sync$/)]);
  });

  it("cuts a reply at the bound (64 MiB, here 1 MiB) and counts it as a failed request", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const retries: string[] = [];
    oanda!.failNext({ kind: "huge", bytes: 8 * 1024 * 1024 });
    const report = await sync({ clock, since: NOW - DAY, retries, source: { maxReplyBytes: 1024 * 1024 } });
    expect(retries).toEqual(["oanda sent a reply a sync cannot use: the reply is larger than 1 MiB; cut off there; retrying EUR_USD h1 candles in 0.1 s (attempt 2 of 8)"]);
    expect(report.failed).toEqual([]);
    expect(report.written).toBeGreaterThan(0);
  });

  it("gives up on a server that never answers after its timeout, and says at once when the host cannot be reached", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const retries: string[] = [];
    oanda!.failNext({ kind: "hang" });
    const report = await sync({ clock, since: NOW - DAY, retries, source: { timeoutMs: 200 } });
    expect(retries).toEqual(["oanda did not answer (no answer within 0.2 s); retrying EUR_USD h1 candles in 0.1 s (attempt 2 of 8)"]);
    expect(report.failed).toEqual([]);

    // A port nothing listens on (one the sync never talked to: no kept-alive connection).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable: string[] = [];
    const failed = await sync({ clock, symbols: ["GBP_USD"], since: NOW - DAY, retries: unreachable, source: { apiUrl: url, attempts: 3 } });
    const host = new URL(url).host;
    expect(unreachable).toEqual([
      `oanda: cannot reach ${host} (connection refused) (check --api-url and the network); retrying GBP_USD h1 candles in 0.1 s (attempt 2 of 3)`,
      `oanda: cannot reach ${host} (connection refused); retrying GBP_USD h1 candles in 0.2 s (attempt 3 of 3)`,
    ]);
    expect(failed.failed.map((f) => f.symbol)).toEqual(["GBP_USD"]);
  });

  it("writes only complete candles: one OANDA has not closed yet is fetched again by the next sync", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const lagging = Math.floor(NOW / HOUR) * HOUR - HOUR;
    oanda!.incomplete.add(lagging);
    await sync({ clock, since: OPEN_HOUR - DAY });
    const first = await storedBars(store, "EURUSD", "h1", "FOREX");
    expect(first.at(-1)!.time).toBe(lagging - HOUR);
    oanda!.incomplete.clear();
    await sync({ clock, since: OPEN_HOUR - DAY });
    const second = await storedBars(store, "EURUSD", "h1", "FOREX");
    expect(second.at(-1)!.time).toBe(lagging);
    expect(second).toEqual(served("EUR_USD", "H1", oanda!.candleTimes("EUR_USD", "H1", OPEN_HOUR - DAY, lagging)));
    // Following from the last stored bar, without it.
    const last = oanda!.served.at(-1)!;
    expect(last.params).toMatchObject({ from: new Date(lagging - HOUR).toISOString().replace(".000Z", ".000000000Z"), includeFirst: "false" });
  });

  it("resumes at both ends with --until, never fetching or writing a bar twice", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const since = OPEN_HOUR - 10 * DAY;
    const until = OPEN_HOUR - 5 * DAY;
    await sync({ clock, timeframe: "m15", since, until });
    const first = await storedBars(store, "EURUSD", "m15", "FOREX");
    expect(first.at(-1)!.time).toBeLessThan(until);
    expect(first.at(-1)!.time).toBe(until - 15 * MINUTE);
    const answered = oanda!.served.length;
    await sync({ clock, timeframe: "m15", since: OPEN_HOUR - 14 * DAY });
    const latest = Math.floor(NOW / (15 * MINUTE)) * 15 * MINUTE - 15 * MINUTE;
    const all = oanda!.candleTimes("EUR_USD", "M15", OPEN_HOUR - 14 * DAY, latest);
    expect(await storedBars(store, "EURUSD", "m15", "FOREX")).toEqual(served("EUR_USD", "M15", all));
    const again = oanda!.served.slice(answered).flatMap((s) => s.complete).filter((t) => first.some((b) => b.time === t));
    expect(again).toEqual([]);
  });

  it("stops within the grace while a request hangs, writing the pages already answered", async () => {
    const clock = new ManualClock(NOW);
    await standIn(() => clock.now());
    const controller = new AbortController();
    // EUR_USD's request is answered; GBP_USD's hangs; the stop comes once both have happened.
    let held = false;
    let answered = false;
    const stopWhenBoth = (): void => void (held && answered && setImmediate(() => controller.abort()));
    oanda!.onRequest = (instrument) => {
      if (instrument !== "GBP_USD") return;
      oanda!.failNext({ kind: "hang" });
      held = true;
      stopWhenBoth();
    };
    oanda!.onCandles = () => {
      answered = true;
      stopWhenBoth();
    };
    const report = await sync({ clock, symbols: ["EUR_USD", "GBP_USD"], since: NOW - DAY, signal: controller.signal, source: { stopGraceMs: 500, perSecond: 1 } });
    expect(report.stopped).toBe(true);
    expect(oanda!.served.map((s) => s.instrument)).toEqual(["EUR_USD"]);
    expect((await storedBars(store, "EURUSD", "h1", "FOREX")).map((b) => b.time)).toEqual(oanda!.served[0]!.complete);
    expect(await storedBars(store, "GBPUSD", "h1", "FOREX")).toEqual([]);
  });

  it("--follow writes each m1 bar after its close, names it by its open time, and takes a quiet weekend answer as no news", async () => {
    // Friday 2025-11-14 21:57:30 UTC: the market closes at 22:00 UTC (17:00 New York).
    const clock = new ManualClock(Date.UTC(2025, 10, 14, 21, 57, 30));
    await standIn(() => clock.now());
    const controller = new AbortController();
    const rounds: FollowRound[] = [];
    const notices: string[] = [];
    await sync({
      clock,
      timeframe: "m1",
      since: Date.UTC(2025, 10, 14, 21, 50),
      follow: true,
      signal: controller.signal,
      rounds,
      notices,
      onRound: () => {
        if (rounds.length === 4) controller.abort();
      },
    });
    expect(rounds.map((r) => [new Date(r.bar).toISOString(), r.written])).toEqual([
      ["2025-11-14T21:57:00.000Z", 1],
      ["2025-11-14T21:58:00.000Z", 1],
      ["2025-11-14T21:59:00.000Z", 1],
      // The weekend: nothing closes, nothing is an error.
      ["2025-11-14T22:00:00.000Z", 0],
    ]);
    for (const round of rounds.slice(0, 3)) expect(round.close).toBe(round.bar + MINUTE);
    expect(notices).toEqual([]);
    expect(await storedBars(store, "EURUSD", "m1", "FOREX")).toEqual(served("EUR_USD", "M1", oanda!.candleTimes("EUR_USD", "M1", Date.UTC(2025, 10, 14, 21, 50), Date.UTC(2025, 10, 14, 22))));
    expect(GRANULARITY_MS.M1).toBe(MINUTE);
  });
});
