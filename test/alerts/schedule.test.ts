/**
 * When alerts are evaluated (src/alerts/schedule.ts) through the real engine and a real SQLite
 * store: a bar stored while still in progress is evaluated when the clock closes it, with no
 * write to wake anyone; a round that fails (the store cannot be read) is tried again after a
 * growing pause; a round for bar t waits for every symbol that had the previous bar to write t,
 * or for the grace (decisions §14). Time is the test's: the scheduler waits on the clock the
 * test moves (`TimedClock`), so each test sees the wait armed, and for when, before it lets it end.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { AlertEngine } from "../../src/alerts/engine.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { BarStore } from "../../src/store/store.js";
import type { Sleep } from "../../src/clock.js";
import { HOUR, MONDAY, TimedClock } from "../kit/index.js";
import { TestClock } from "../server/helpers.js";
import { outbox, until } from "./helpers.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Ten h1 bars of AAA closing at 50, the last (hour 9) at `lastClose`. */
async function storeWith(lastClose: number): Promise<SqliteStore> {
  const store = new SqliteStore(":memory:");
  cleanup.push(() => store.close());
  const closes = [...new Array<number>(9).fill(50), lastClose];
  await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: { time: closes.map((_, i) => MONDAY + i * HOUR), open: closes, high: closes, low: closes, close: closes, volume: closes.map(() => 1) } }] }]);
  return store;
}

async function engineOn(bars: BarStore, store: SqliteStore, clock: TimedClock): Promise<AlertEngine> {
  const engine = new AlertEngine({ bars, alerts: store.alerts, clock, roundWait: clock.sleep, compile: (text) => compile(text), warmup: 300, allowPrivateWebhooks: true, settleMs: 10 });
  cleanup.push(() => engine.stop());
  const baseline = await engine.baseline(compile(QUERY));
  await store.alerts.createAlert({ id: "alrt_clock", accountId: "acct_clock", name: "clock", query: QUERY, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: baseline.time, matching: baseline.matching }, 1);
  return engine;
}

describe("the engine's rounds", () => {
  it("evaluate a bar stored in progress when the clock closes it, with no write", async () => {
    const store = await storeWith(150);
    const close = MONDAY + 10 * HOUR;
    // Hour 9 closes at 10:00; the clock stands 400 ms before.
    const clock = new TimedClock(close - 400);
    const engine = await engineOn(store, store, clock);
    const lastTime = async () => (await store.alerts.findAlert("acct_clock", "alrt_clock"))!.lastTime;
    expect(await lastTime()).toBe(MONDAY + 8 * HOUR);
    engine.start();
    // The first round finds hour 9 in progress and looks again just after its close.
    await until(() => clock.waiting.includes(close + 5), { signal: clock.armed, what: "a look at hour 9's close" });
    clock.advance(399);
    expect(clock.waiting).toEqual([close + 5]);
    expect(await lastTime()).toBe(MONDAY + 8 * HOUR);
    clock.advance(6);
    await until(async () => (await lastTime()) === MONDAY + 9 * HOUR, { what: "the round at hour 9's close" });
    const [delivery] = await store.alerts.deliveriesAfter(["acct_clock"], 0, 0, 10);
    expect(JSON.parse(delivery!.body)).toMatchObject({ time: MONDAY + 9 * HOUR, events: [{ symbol: "AAA", kind: "enter", columns: { close: 150 } }] });
  });

  it("try a failed round again, after 0.5 s, then 1 s", async () => {
    const store = await storeWith(150);
    let failures = 2;
    // The store's reads fail twice (a database restarting), then answer.
    const flaky: BarStore = Object.create(store) as BarStore;
    flaky.latestBars = async (request) => {
      if (failures-- > 0) throw new Error("connection refused");
      return store.latestBars(request);
    };
    const start = MONDAY + 100 * HOUR;
    const clock = new TimedClock(start);
    const baseline = { time: MONDAY + 8 * HOUR };
    const engine = new AlertEngine({ bars: flaky, alerts: store.alerts, clock, roundWait: clock.sleep, compile: (text) => compile(text), warmup: 300, allowPrivateWebhooks: true, settleMs: 10 });
    cleanup.push(() => engine.stop());
    await store.alerts.createAlert({ id: "alrt_retry", accountId: "acct_retry", name: "retry", query: QUERY, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: baseline.time, matching: [] }, 1);
    const lastTime = async () => (await store.alerts.findAlert("acct_retry", "alrt_retry"))!.lastTime;
    engine.start();
    await until(() => clock.waiting.includes(start + 500), { signal: clock.armed, what: "the first retry" });
    expect(failures).toBe(1);
    clock.advance(500);
    await until(() => clock.waiting.includes(start + 1_500), { signal: clock.armed, what: "the second retry, a longer pause" });
    expect(await lastTime()).toBe(baseline.time);
    clock.advance(1_000);
    await until(async () => (await lastTime()) === MONDAY + 9 * HOUR, { what: "the round that succeeds" });
    expect(failures).toBeLessThan(0);
  });
});

describe("a round waits for the bar's writers", () => {
  const SYMBOLS = ["AAA", "BBB", "CCC"];
  /** Hour 10's close. */
  const CLOSE = MONDAY + 11 * HOUR;

  /** AAA, BBB and CCC with h1 bars at hours 0–9 closing at 50, and an alert on close > 100 from hour 9 on. */
  async function setup(clock: { now(): number }, options: { graceMs?: number; settleMs?: number; roundWait?: Sleep } = {}) {
    const store = new SqliteStore(":memory:");
    cleanup.push(() => store.close());
    const closes = new Array<number>(10).fill(50);
    const bars = { time: closes.map((_, i) => MONDAY + i * HOUR), open: closes, high: closes, low: closes, close: closes, volume: closes.map(() => 1) };
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: SYMBOLS.map((symbol) => ({ symbol, bars })) }]);
    // Rounds run when the test asks (the settle outlasts the test), unless it says otherwise.
    const engine = new AlertEngine({ bars: store, alerts: store.alerts, clock, compile: (text) => compile(text), warmup: 300, allowPrivateWebhooks: true, settleMs: 3_600_000, ...options });
    cleanup.push(() => engine.stop());
    await store.alerts.createAlert({ id: "alrt_grace", accountId: "acct_grace", name: "grace", query: QUERY, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: MONDAY + 9 * HOUR, matching: [] }, 1);
    engine.start();
    const write = (closes: Record<string, number>) =>
      store.upsertBars([
        { market: "CRYPTO", timeframe: "h1", symbols: Object.entries(closes).map(([symbol, c]) => ({ symbol, bars: { time: [MONDAY + 10 * HOUR], open: [c], high: [c], low: [c], close: [c], volume: [1] } })) },
      ]);
    const lastTime = async () => (await store.alerts.findAlert("acct_grace", "alrt_grace"))!.lastTime;
    const events = async () => (await outbox(store.alerts, "acct_grace")).map((d) => [d.time, d.events.map((e) => `${e.kind} ${e.symbol}`)]);
    return { engine, write, lastTime, events };
  }

  it("evaluates bar t once every symbol that had the previous bar has written t, not on the first write", async () => {
    const clock = new TestClock(CLOSE + 1_000);
    const s = await setup(clock);
    await s.write({ AAA: 150 });
    await s.engine.evaluate();
    // One writer of three: the round waits (the clock stands 1 s after the close, inside the 5 s grace).
    expect(await s.lastTime()).toBe(MONDAY + 9 * HOUR);
    await s.write({ BBB: 150, CCC: 50 });
    await s.engine.evaluate();
    expect(await s.lastTime()).toBe(MONDAY + 10 * HOUR);
    expect(await s.events()).toEqual([[MONDAY + 10 * HOUR, ["enter AAA", "enter BBB"]]]);
  });

  it("evaluates bar t without the symbols still absent once the grace has passed since t's close", async () => {
    const clock = new TestClock(CLOSE + 1_000);
    const s = await setup(clock);
    await s.write({ AAA: 150 });
    await s.engine.evaluate();
    clock.t = CLOSE + 4_999;
    await s.engine.evaluate();
    expect(await s.lastTime()).toBe(MONDAY + 9 * HOUR);
    clock.t = CLOSE + 5_000;
    await s.engine.evaluate();
    expect(await s.lastTime()).toBe(MONDAY + 10 * HOUR);
    expect(await s.events()).toEqual([[MONDAY + 10 * HOUR, ["enter AAA"]]]);
  });

  it("takes the grace as an option: 0 evaluates on the first write", async () => {
    const s = await setup(new TestClock(CLOSE + 1_000), { graceMs: 0 });
    await s.write({ AAA: 150 });
    await s.engine.evaluate();
    expect(await s.lastTime()).toBe(MONDAY + 10 * HOUR);
  });

  it("runs the round on its own when the grace ends, with no write to wake it", async () => {
    // The clock stands 4.8 s after the close: the grace ends 200 ms on.
    const clock = new TimedClock(CLOSE + 4_800);
    const s = await setup(clock, { settleMs: 10, roundWait: clock.sleep });
    await s.write({ AAA: 150 });
    // The write's round (10 ms on) finds BBB and CCC absent inside the grace, and looks again when it ends.
    await until(() => clock.waiting.includes(CLOSE + 4_810), { signal: clock.armed, what: "the round after the write" });
    clock.advance(10);
    await until(() => clock.waiting.includes(CLOSE + 5_005), { signal: clock.armed, what: "a look at the grace's end" });
    expect(await s.lastTime()).toBe(MONDAY + 9 * HOUR);
    clock.advance(195);
    await until(async () => (await s.lastTime()) === MONDAY + 10 * HOUR, { what: "the round at the grace's end" });
    expect(await s.events()).toEqual([[MONDAY + 10 * HOUR, ["enter AAA"]]]);
  });
});
