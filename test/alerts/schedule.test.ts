/**
 * When alerts are evaluated (src/alerts/schedule.ts) through the real engine and a real SQLite
 * store: a bar stored while still in progress is evaluated when the clock closes it, with no
 * write to wake anyone; a round that fails (the store cannot be read) is tried again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { AlertEngine } from "../../src/alerts/engine.js";
import { SqliteStore } from "../../src/store/sqlite.js";
import type { BarStore } from "../../src/store/store.js";
import { HOUR, MONDAY } from "../kit/index.js";
import { RunningClock, until } from "./helpers.js";

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

async function engineOn(bars: BarStore, store: SqliteStore, clock: { now(): number }): Promise<AlertEngine> {
  const engine = new AlertEngine({ bars, alerts: store.alerts, clock, compile: (text) => compile(text), warmup: 300, allowPrivateWebhooks: true, settleMs: 10 });
  cleanup.push(() => engine.stop());
  const baseline = await engine.baseline(compile(QUERY));
  await store.alerts.createAlert({ id: "alrt_clock", accountId: "acct_clock", name: "clock", query: QUERY, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: baseline.time, matching: baseline.matching }, 1);
  return engine;
}

describe("the engine's rounds", () => {
  it("evaluate a bar stored in progress when the clock closes it, with no write", async () => {
    const store = await storeWith(150);
    // Hour 9 closes at 10:00; the clock stands 400 ms before.
    const clock = new RunningClock(MONDAY + 10 * HOUR - 400);
    const engine = await engineOn(store, store, clock);
    expect((await store.alerts.findAlert("acct_clock", "alrt_clock"))!.lastTime).toBe(MONDAY + 8 * HOUR);
    engine.start();
    await until(async () => (await store.alerts.findAlert("acct_clock", "alrt_clock"))!.lastTime === MONDAY + 9 * HOUR, 10_000);
    const [delivery] = await store.alerts.deliveriesAfter(["acct_clock"], 0, 0, 10);
    expect(JSON.parse(delivery!.body)).toMatchObject({ time: MONDAY + 9 * HOUR, events: [{ symbol: "AAA", kind: "enter", columns: { close: 150 } }] });
  });

  it("try a failed round again", async () => {
    const store = await storeWith(150);
    let failures = 2;
    // The store's reads fail twice (a database restarting), then answer.
    const flaky: BarStore = Object.create(store) as BarStore;
    flaky.latestBars = async (request) => {
      if (failures-- > 0) throw new Error("connection refused");
      return store.latestBars(request);
    };
    const clock = new RunningClock(MONDAY + 100 * HOUR);
    const baseline = { time: MONDAY + 8 * HOUR };
    const engine = new AlertEngine({ bars: flaky, alerts: store.alerts, clock, compile: (text) => compile(text), warmup: 300, allowPrivateWebhooks: true, settleMs: 10 });
    cleanup.push(() => engine.stop());
    await store.alerts.createAlert({ id: "alrt_retry", accountId: "acct_retry", name: "retry", query: QUERY, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: baseline.time, matching: [] }, 1);
    engine.start();
    await until(async () => (await store.alerts.findAlert("acct_retry", "alrt_retry"))!.lastTime === MONDAY + 9 * HOUR, 10_000);
    expect(failures).toBeLessThan(0);
  });
});
