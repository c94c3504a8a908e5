/**
 * The defining property of alerts (decisions §7, §9, §14): over a replayed feed, an alert's
 * events are the transitions of the service's history (from each bar's anchors) over the same
 * bars, per symbol over its own bars (absence is not an exit; an exit carries its bar's
 * columns), from the bar after its creation on — columns bit-identical (through JSON, as every body travels). Random queries (every
 * function, offsets, prefixes to coarser timeframes the store derives), random instruments
 * starting and ending at their own hours, bars pushed after creation one closed bar at a time
 * or a few at once (a late batch), into a real SQLite store, evaluated by the real engine.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { compile, validate } from "../../src/api.js";
import { printExpression } from "../../src/ast/print.js";
import { AlertEngine } from "../../src/alerts/engine.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { arbitraryExpression } from "../../src/testing/index.js";
import type { Bars } from "../../src/types.js";
import { HOUR, MONDAY, prng, symbolName, tickWalk, type ArrayBars } from "../kit/index.js";
import { expectedAlert, outbox } from "./helpers.js";
import { systemClock } from "../../src/clock.js";

const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';
/** A warm-up of 20 bars: anchors move every 20 bars of the 90-bar feed, between and inside batches. */
const OPTIONS = { warmupCeiling: 20 };

/** Instruments of h1 bars, each starting and ending at its own hour. */
function feed(seed: number, symbols: number, length: number): { symbol: string; bars: ArrayBars }[] {
  const rand = prng(seed);
  return Array.from({ length: symbols }, (_, i) => {
    const count = length - Math.floor(rand() * 20);
    const start = MONDAY + Math.floor(rand() * 30) * HOUR;
    return { symbol: symbolName(i), bars: tickWalk({ seed: seed * 7 + i, count, timeframe: "h1", start, vol: 0.004 + rand() * 0.01 }) };
  });
}

/** Each instrument's bars with open time in [from, to). */
function slice(instruments: { symbol: string; bars: ArrayBars }[], from: number, to: number): { symbol: string; bars: Bars }[] {
  const out: { symbol: string; bars: Bars }[] = [];
  for (const { symbol, bars } of instruments) {
    let a = 0;
    while (a < bars.time.length && bars.time[a]! < from) a++;
    let b = a;
    while (b < bars.time.length && bars.time[b]! < to) b++;
    if (b > a) {
      out.push({
        symbol,
        bars: {
          time: bars.time.slice(a, b),
          open: bars.open.slice(a, b),
          high: bars.high.slice(a, b),
          low: bars.low.slice(a, b),
          close: bars.close.slice(a, b),
          volume: bars.volume.slice(a, b),
        },
      });
    }
  }
  return out;
}

let eventsSeen = 0;

/**
 * Replays the feed: bars before the creation point in one write, the alerts created, then the
 * rest written `chunks` bars at a time, the engine evaluating after each write; then compares
 * each alert's deliveries with history's transitions over every bar the store holds.
 */
async function replay(queries: string[], seed: number, created: number, chunks: number[]): Promise<void> {
  const store = new SqliteStore(":memory:");
  const engine = new AlertEngine({
    bars: store,
    alerts: store.alerts,
    clock: systemClock,
    compile: (text) => compile(text, OPTIONS),
    warmup: 300,
    allowPrivateWebhooks: true,
    // Rounds run when the test asks, after each write, never on the write's own trigger.
    settleMs: 3_600_000,
  });
  try {
    await store.createAccount("acct_property", "plus", 0);
    const instruments = feed(seed, 3, 90);
    const times = [...new Set(instruments.flatMap((i) => Array.from(i.bars.time)))].sort((a, b) => a - b);
    const split = Math.max(1, Math.floor(times.length * created));
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: slice(instruments, -Infinity, times[split]!) }]);
    engine.start();
    const alerts: { id: string; query: string; baseline: number | null }[] = [];
    for (const [n, query] of queries.entries()) {
      const baseline = await engine.baseline(compile(query, OPTIONS));
      const id = `alrt_property${n}`;
      await store.alerts.createAlert(
        { id, accountId: "acct_property", name: `p${n}`, query, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: 0, lastTime: baseline.time, matching: baseline.matching },
        100,
      );
      alerts.push({ id, query, baseline: baseline.time });
    }
    let at = split;
    for (let k = 0; at < times.length; k++) {
      const next = Math.min(times.length, at + chunks[k % chunks.length]!);
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: slice(instruments, times[at]!, next < times.length ? times[next]! : Infinity) }]);
      await engine.evaluate();
      at = next;
    }
    const delivered = await outbox(store.alerts, "acct_property");
    for (const { id, query, baseline } of alerts) {
      // Every bar the store holds, every timeframe the query reads (coarser ones derived by the store).
      const compiled = compile(query, OPTIONS);
      const universe = await fetchUniverse(store, compiled.plan, { warmup: 100_000, fetch: compiled.fetch });
      const { deliveries: expected, matching } = await expectedAlert(query, universe, baseline, OPTIONS);
      const actual = delivered.filter((d) => d.alert.id === id).map((d) => ({ time: d.time, events: d.events }));
      expect(actual, query).toEqual(expected);
      eventsSeen += expected.reduce((n, d) => n + d.events.length, 0);
      // The state left is history's rows at the last bar.
      const record = (await store.alerts.findAlert("acct_property", id))!;
      expect(record.lastTime).toBe(times[times.length - 1]);
      expect(record.matching.map((m) => m.symbol)).toEqual(matching);
    }
  } finally {
    await engine.stop();
    await store.close();
  }
}

const FIXED = [
  "columns = [close, rsi(close, 5)]\nrsi(close, 5) > 55",
  "columns = [sma(5), rsi(sma(5), 3)]\nsort = sma(5) desc\nlimit = 2\nrsi(sma(5), 3) > 40 or crossover(sma(5), ema(8))",
  "columns = [d::close, h4::ema(close, 5)]\nsort = h4::ema(close, 5) desc\ncrossover(close, ema(close, 4)) or close > d::close or h4::rsi(5) > 50",
  "let m = ema(wma(close, 4), 6)\ncolumns = [m, highest(m, 3)]\nm > highest(m, 3)[1] and not (close < lowest(low, 5))",
];

describe("an alert's events are history's transitions over the same bars", () => {
  afterAll(() => {
    // Not vacuous: the replays produced events to compare.
    expect(eventsSeen).toBeGreaterThan(20);
  });

  it.each(FIXED)("for %s, bars pushed one at a time and in late batches", async (q) => {
    await replay([HEADER + q], 5, 0.5, [1, 1, 3, 1, 2]);
  });

  it("for random queries and feeds, two alerts sharing the bars read", async () => {
    const query = fc
      .record({
        condition: arbitraryExpression({ type: "boolean", timeframe: "h1", maxDepth: 3 }),
        column: arbitraryExpression({ type: "number", timeframe: "h1", maxDepth: 2 }),
        limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        desc: fc.boolean(),
      })
      .map(({ condition, column, limit, desc }) => {
        const c = printExpression(column);
        return `${HEADER}columns = [${c}]\nsort = ${c} ${desc ? "desc" : "asc"}\n${limit ? `limit = ${limit}\n` : ""}${printExpression(condition)}`;
      })
      .filter((q) => validate(q).valid);
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(query, query),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0.3, max: 0.8, noNaN: true }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 5 }),
        async (queries, seed, created, chunks) => {
          await replay(queries, seed, created, chunks);
        },
      ),
      { numRuns: 12, seed: 20261125 },
    );
  }, 240_000);
});
