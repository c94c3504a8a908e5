/**
 * Alerts over lists (decisions §13): an alert on `symbols = [...]` or on a watchlist delivers
 * the whole market's transitions filtered to the list (random lists, symbols the market lacks
 * included), and an alert on a watchlist follows the list as it is at each bar: two accounts'
 * lists of one name are two screens, and a list saved anew is the one the next bar screens.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { AlertEngine } from "../../src/alerts/engine.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { Bars } from "../../src/types.js";
import { MONDAY, symbolName, tickWalk } from "../kit/index.js";
import { expectedAlert, outbox } from "./helpers.js";
import { systemClock } from "../../src/clock.js";

const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';
const BODY = "columns = [close, rsi(close, 5)]\nrsi(close, 5) > 52";
const SYMBOLS = Array.from({ length: 6 }, (_, i) => symbolName(i));
const LENGTH = 80;
const feed = SYMBOLS.map((symbol, i) => ({ symbol, bars: tickWalk({ seed: 31 + i, count: LENGTH, timeframe: "h1", start: MONDAY, vol: 0.01 }) }));

function upTo(from: number, to: number): { symbol: string; bars: Bars }[] {
  return feed.map(({ symbol, bars }) => {
    const a = Math.max(0, from);
    const b = Math.min(LENGTH, to);
    const cut = (c: ArrayLike<number>) => Array.from(c).slice(a, b);
    return { symbol, bars: { time: cut(bars.time), open: cut(bars.open), high: cut(bars.high), low: cut(bars.low), close: cut(bars.close), volume: cut(bars.volume) } };
  });
}

interface Replay {
  store: SqliteStore;
  engine: AlertEngine;
}

async function withEngine(work: (r: Replay) => Promise<void>): Promise<void> {
  const store = new SqliteStore(":memory:");
  const engine = new AlertEngine({
    bars: store,
    alerts: store.alerts,
    watchlists: store,
    clock: systemClock,
    compile: (text) => compile(text),
    warmup: 300,
    allowPrivateWebhooks: true,
    settleMs: 3_600_000,
  });
  try {
    await work({ store, engine });
  } finally {
    await engine.stop();
    await store.close();
  }
}

async function create(r: Replay, id: string, accountId: string, query: string, list: readonly string[]): Promise<number | null> {
  const baseline = await r.engine.baseline(compile(query, { watchlists: { mine: list } }));
  await r.store.alerts.createAlert(
    { id, accountId, name: id, query, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: baseline.time, matching: baseline.matching },
    100,
  );
  return baseline.time;
}

async function push(r: Replay, from: number, to: number): Promise<void> {
  for (let at = from; at < to; at++) {
    await r.store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: upTo(at, at + 1) }]);
    await r.engine.evaluate();
  }
}

const lists = fc.uniqueArray(fc.constantFrom(...SYMBOLS, "NOPE", "ZZZ"), { minLength: 1, maxLength: 8 });

let events = 0;

describe("alerts over a list", () => {
  it("deliver the whole market's transitions filtered to the list (symbols and watchlist alike)", async () => {
    await fc.assert(
      fc.asyncProperty(lists, lists, async (a, b) => {
        await withEngine(async (r) => {
          await r.store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: upTo(0, 40) }]);
          r.engine.start();
          await r.store.putWatchlist("acct_a", "mine", a, 1);
          await r.store.putWatchlist("acct_b", "mine", b, 1);
          const onList = `${HEADER}watchlist = "mine"\n${BODY}`;
          const written = `${HEADER}symbols = [${b.map((s) => JSON.stringify(s)).join(", ")}]\n${BODY}`;
          const created = await create(r, "alrt_a", "acct_a", onList, a);
          await create(r, "alrt_b", "acct_b", onList, b);
          await create(r, "alrt_w", "acct_b", written, b);
          await push(r, 40, LENGTH);
          const whole = compile(`${HEADER}${BODY}`);
          const universe = await fetchUniverse(r.store, whole.plan, { warmup: 100_000, fetch: whole.fetch });
          const { deliveries: all } = await expectedAlert(`${HEADER}${BODY}`, universe, created);
          const filtered = (list: readonly string[]) =>
            all.map((d) => ({ time: d.time, events: d.events.filter((e) => list.includes(e.symbol)) })).filter((d) => d.events.length > 0);
          const got = async (accountId: string, id: string) =>
            (await outbox(r.store.alerts, accountId)).filter((d) => d.alert.id === id).map((d) => ({ time: d.time, events: d.events }));
          events += all.length;
          expect(await got("acct_a", "alrt_a")).toEqual(filtered(a));
          expect(await got("acct_b", "alrt_b")).toEqual(filtered(b));
          expect(await got("acct_b", "alrt_w")).toEqual(filtered(b));
        });
      }),
      { numRuns: 6 },
    );
    // Not vacuous: the market had transitions to filter.
    expect(events).toBeGreaterThan(6);
  }, 120_000);

  it("follows the watchlist as it is at each bar", async () => {
    await withEngine(async (r) => {
      await r.store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: upTo(0, 40) }]);
      r.engine.start();
      await r.store.putWatchlist("acct_a", "mine", SYMBOLS.slice(0, 2), 1);
      const query = `${HEADER}watchlist = "mine"\n${BODY}`;
      await create(r, "alrt_a", "acct_a", query, SYMBOLS.slice(0, 2));
      await push(r, 40, 60);
      await r.store.putWatchlist("acct_a", "mine", SYMBOLS.slice(3), 2);
      await push(r, 60, LENGTH);
      const whole = compile(`${HEADER}${BODY}`);
      const universe = await fetchUniverse(r.store, whole.plan, { warmup: 100_000, fetch: whole.fetch });
      const record = (await r.store.alerts.findAlert("acct_a", "alrt_a"))!;
      const last = feed[0]!.bars.time[LENGTH - 1]!;
      expect(record.lastTime).toBe(last);
      const { matching } = await expectedAlert(`${HEADER}${BODY}`, universe, null);
      expect(record.matching.map((m) => m.symbol)).toEqual(matching.filter((s) => SYMBOLS.slice(3).includes(s)));
      // After the change only the new list's symbols have events: the old list's left the state
      // without one (they did not stop matching; the list stopped following them).
      const delivered = (await outbox(r.store.alerts, "acct_a")).filter((d) => d.time > feed[0]!.bars.time[59]!);
      for (const d of delivered) for (const e of d.events) expect(SYMBOLS.slice(3)).toContain(e.symbol);
    });
  }, 60_000);
});
