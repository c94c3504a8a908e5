/**
 * Bars the evaluator checks and bars it trusts (src/eval/bars.ts): a caller's bars are checked
 * on every run (one pass per instrument and source: finite, increasing, on the market's grid);
 * the store's bars, handed out by fetchUniverse, carry a mark and skip that pass. The skip is
 * asserted by the count of passes, not by timing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { compile, type Bars, type Instrument } from "../../src/index.js";
import { barTimePasses, firstAtOrAfterTime, isTrusted } from "../../src/eval/bars.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { barOpen, DAY, HOUR, MINUTE, MONDAY, rampBars, tickWalk, type ArrayBars } from "../kit/index.js";

const NOW = Date.UTC(2026, 10, 20, 13, 25);
const H1 = 'market = "CRYPTO"\ntimeframe = h1\n';

/** The instrument's bars copied into fresh arrays: the same values, not the store's objects. */
function copied(instrument: Instrument): Instrument {
  const bars: Partial<Record<string, Bars>> = {};
  for (const [tf, b] of Object.entries(instrument.bars)) {
    const { time, open, high, low, close, volume } = b!;
    bars[tf] = { time: Array.from(time), open: Array.from(open), high: Array.from(high), low: Array.from(low), close: Array.from(close), volume: Array.from(volume) };
  }
  return { symbol: instrument.symbol, bars };
}

describe("the store's bars are trusted", () => {
  let store: SqliteStore;
  const query = compile(`${H1}columns = [close, d::close]\nsort = close desc\nclose > sma(close, 5) or d::close > 0`);

  beforeEach(async () => {
    store = new SqliteStore(":memory:");
    await store.upsertBars([
      {
        market: "CRYPTO",
        timeframe: "h1",
        symbols: ["BTCUSDT", "ETHUSDT", "SOLUSDT"].map((symbol, k) => ({ symbol, bars: rampBars("h1", 400, barOpen("h1", NOW), 100 + k) })),
      },
    ]);
  });
  afterEach(() => store.close());

  it("fetchUniverse marks every source's bars it hands out", async () => {
    const universe = await fetchUniverse(store, query.plan);
    expect(universe).toHaveLength(3);
    for (const instrument of universe) {
      expect(isTrusted(instrument.bars.h1!)).toBe(true);
      expect(isTrusted(instrument.bars.d!)).toBe(true);
    }
  });

  it("run and history over them make no pass over bar times; the same bars injected are checked on every run", async () => {
    const universe = await fetchUniverse(store, query.plan);
    const injected = universe.map(copied);
    expect(injected.every((i) => !isTrusted(i.bars.h1!))).toBe(true);

    const before = barTimePasses();
    const trustedRun = query.run(universe);
    query.history(universe, { bars: 20 });
    await query.runAsync(universe);
    expect(barTimePasses()).toBe(before);

    const checkedRun = query.run(injected);
    // One pass per instrument and source (h1 and d), each run.
    expect(barTimePasses()).toBe(before + 3 * 2);
    query.run(injected);
    expect(barTimePasses()).toBe(before + 2 * 3 * 2);
    // The same answer either way.
    expect(checkedRun).toEqual(trustedRun);
    expect(trustedRun.results).toHaveLength(3);
  });
});

describe("a caller's bars are checked, with the messages as before", () => {
  const good = (): ArrayBars => tickWalk({ seed: 7, count: 40, timeframe: "h1" });
  const attempt = (bars: Partial<Record<"h1" | "d" | "w", Bars>>, query = `${H1}close > 0`) => () =>
    compile(query).run([{ symbol: "BAD", bars }]);

  it("out of order", () => {
    const b = good();
    [b.time[10], b.time[11]] = [b.time[11]!, b.time[10]!];
    expect(attempt({ h1: b })).toThrow(
      expect.objectContaining({ name: "XqlDataError", code: "bars-times", message: `Instrument 'BAD', timeframe h1: bar times must be finite and strictly increasing, oldest first (time[11] = ${b.time[11]} after ${b.time[10]})` }),
    );
  });

  it("not finite: NaN inside, Infinity last", () => {
    const b = good();
    b.time[3] = NaN;
    expect(attempt({ h1: b })).toThrow(/timeframe h1: bar times must be finite and strictly increasing, oldest first \(time\[3\] = NaN after/);
    const c = good();
    c.time[39] = Infinity;
    expect(attempt({ h1: c })).toThrow(expect.objectContaining({ name: "XqlDataError", message: "Instrument 'BAD', timeframe h1: bar time Infinity is not finite" }));
  });

  it("off the grid: an h1 bar at half past the hour (CRYPTO)", () => {
    const b = good();
    b.time[5] = b.time[5]! - 30 * MINUTE;
    expect(attempt({ h1: b })).toThrow(
      expect.objectContaining({
        name: "XqlDataError",
        message: `Instrument 'BAD', timeframe h1: bar time ${new Date(b.time[5]).toISOString()} (time[5] = ${b.time[5]}) is not on the h1 grid (its bars open on the whole hour, UTC)`,
      }),
    );
  });

  it("off the grid: CRYPTO days at 00:00 UTC, weeks on Mondays", () => {
    const days = tickWalk({ seed: 8, count: 30, timeframe: "d", start: MONDAY + 22 * HOUR });
    expect(attempt({ d: days }, 'market = "CRYPTO"\ntimeframe = d\nclose > 0')).toThrow(/timeframe d: .* is not on the d grid \(its bars open at 00:00 UTC\)/);
    const weeks = tickWalk({ seed: 9, count: 30, timeframe: "w", start: MONDAY - DAY });
    expect(attempt({ w: weeks }, 'market = "CRYPTO"\ntimeframe = w\nclose > 0')).toThrow(/timeframe w: .* is not on the w grid \(its bars open on Monday 00:00 UTC\)/);
  });

  it("FOREX days open at 17:00 New York, on a whole UTC hour: 22:00 UTC passes, 22:30 does not", () => {
    const q = 'market = "FOREX"\ntimeframe = d\nclose > 0';
    const days = tickWalk({ seed: 10, count: 30, timeframe: "d", start: MONDAY - 2 * HOUR });
    expect(compile(q).run([{ symbol: "EURUSD", bars: { d: days } }]).meta.instruments).toBe(1);
    days.time[4] = days.time[4]! + 30 * MINUTE;
    expect(() => compile(q).run([{ symbol: "EURUSD", bars: { d: days } }])).toThrow(/timeframe d: .* is not on the d grid \(its bars open on the whole hour, UTC\)/);
  });

  it("a market whose grid the contract does not fix is not checked against one", () => {
    const b = good();
    for (let i = 0; i < b.time.length; i++) b.time[i] = b.time[i]! + 15 * MINUTE;
    const q = compile('market = "NSE"\ntimeframe = h1\nclose > 0', { markets: ["NSE"] });
    expect(q.run([{ symbol: "INFY", bars: { h1: b } }]).results.map((r) => r.symbol)).toEqual(["INFY"]);
  });

  it("every source the query reads is checked, other sources are not", () => {
    const d = tickWalk({ seed: 11, count: 5, timeframe: "d", start: MONDAY - 5 * DAY });
    d.time[2] = d.time[2]! + MINUTE;
    expect(attempt({ h1: good(), d }, `${H1}d::close > 0`)).toThrow(/timeframe d: .* is not on the d grid/);
    expect(attempt({ h1: good(), d })).not.toThrow();
  });
});

describe("finding the first bar at or after a time", () => {
  it("is the bisection's answer for any increasing times, on the grid or not, with gaps, from any start", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: -5, max: 300 }),
        fc.constantFrom(1, 2, 3),
        (steps, start, at, step) => {
          // Times on a grid of `step` where every step is 1 (no gap), off it elsewhere.
          const times: number[] = [];
          let t = 10;
          for (const s of steps) times.push((t += s));
          const lo = Math.min(start, times.length);
          const time = 10 + at / 2;
          let expected = lo;
          while (expected < times.length && times[expected]! < time) expected++;
          expect(firstAtOrAfterTime(times, lo, times.length, time, step)).toBe(expected);
          expect(firstAtOrAfterTime(Float64Array.from(times), lo, times.length, time, step)).toBe(expected);
        },
      ),
    );
  });

  it("finds a bar past every time, and before every time", () => {
    const times = [HOUR, 2 * HOUR, 3 * HOUR];
    expect(firstAtOrAfterTime(times, 0, 3, Infinity, HOUR)).toBe(3);
    expect(firstAtOrAfterTime(times, 0, 3, -Infinity, HOUR)).toBe(0);
    expect(firstAtOrAfterTime(times, 3, 3, 0, HOUR)).toBe(3);
  });
});
