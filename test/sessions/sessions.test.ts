/**
 * Sessions (decisions §2 "Sessions"): New York's daylight saving time against the platform's
 * time-zone database (Intl), and FOREX days, weeks and h4 bars against an aggregation written
 * here from New York wall-clock times read through Intl (sharing no code with src/sessions):
 * DST starts and ends, broker stubs on weekends, CRYPTO unchanged.
 */
import { describe, expect, it } from "vitest";
import { deriveTimeframes } from "../../src/index.js";
import { isNewYorkDaylight, newYorkOffset } from "../../src/sessions/new-york.js";
import { isPeriodOpen, periodRange, periodStart } from "../../src/sessions/periods.js";
import type { Bars, Timeframe } from "../../src/types.js";
import { type Row, aggregateByKey, forexKey, ny } from "./independent.js";
import { prng } from "../kit/index.js";

const H = 3_600_000;
const DAY = 24 * H;

describe("New York daylight saving time", () => {
  it("agrees with the time-zone database at every hour around each change, 1970 to 2099", () => {
    let checked = 0;
    for (let year = 1970; year < 2100; year++) {
      // Every hour of the days a change can fall on (and of January/February, for 1974 and 1975).
      const months = year === 1974 || year === 1975 ? [0, 1, 2, 3, 9, 10] : [2, 3, 9, 10];
      for (const month of months) {
        for (let day = 1; day <= 31; day++) {
          const base = Date.UTC(year, month, day);
          if (new Date(base).getUTCMonth() !== month) break;
          if (new Date(base).getUTCDay() !== 0 && !(year === 1974 && month === 0) && !(year === 1975 && month === 1)) continue;
          for (let h = 0; h < 12; h++) {
            const t = base + h * H;
            const [y, m, d, hh, mi] = ny(t);
            const wall = Date.UTC(y, m - 1, d, hh, mi);
            expect(newYorkOffset(t), new Date(t).toISOString()).toBe(wall - t);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it("knows the 2007 rule: second Sunday of March to first Sunday of November, at 2:00 local", () => {
    expect(isNewYorkDaylight(Date.UTC(2026, 2, 8, 6, 59, 59, 999))).toBe(false);
    expect(isNewYorkDaylight(Date.UTC(2026, 2, 8, 7))).toBe(true);
    expect(isNewYorkDaylight(Date.UTC(2026, 10, 1, 5, 59, 59, 999))).toBe(true);
    expect(isNewYorkDaylight(Date.UTC(2026, 10, 1, 6))).toBe(false);
  });
});

describe("period starts", () => {
  it("CRYPTO is UTC: days at midnight, weeks on Monday, h4 every four hours from midnight", () => {
    const t = Date.UTC(2026, 0, 7, 13, 45); // a Wednesday
    expect(periodStart(t, "d", "CRYPTO")).toBe(Date.UTC(2026, 0, 7));
    expect(periodStart(t, "w", "CRYPTO")).toBe(Date.UTC(2026, 0, 5));
    expect(periodStart(t, "h4", "CRYPTO")).toBe(Date.UTC(2026, 0, 7, 12));
    expect(periodStart(t, "m15", "crypto")).toBe(Date.UTC(2026, 0, 7, 13, 45));
    expect(periodRange(t, "w", "CRYPTO")).toEqual({ start: Date.UTC(2026, 0, 5), from: Date.UTC(2026, 0, 5), to: Date.UTC(2026, 0, 12) });
  });

  it("FOREX days open at 17:00 New York: 22:00 UTC in winter, 21:00 UTC under daylight saving", () => {
    // Wednesday 2026-01-07 13:45 UTC (08:45 EST) is in Wednesday's day, open Tuesday 17:00 EST.
    expect(periodStart(Date.UTC(2026, 0, 7, 13, 45), "d", "FOREX")).toBe(Date.UTC(2026, 0, 6, 22));
    // At 22:00 UTC the next day opens.
    expect(periodStart(Date.UTC(2026, 0, 7, 22), "d", "FOREX")).toBe(Date.UTC(2026, 0, 7, 22));
    expect(periodStart(Date.UTC(2026, 0, 7, 21, 59), "d", "FOREX")).toBe(Date.UTC(2026, 0, 6, 22));
    // July: EDT, 21:00 UTC.
    expect(periodStart(Date.UTC(2026, 6, 8, 21), "d", "FOREX")).toBe(Date.UTC(2026, 6, 8, 21));
    expect(periodStart(Date.UTC(2026, 6, 8, 20), "d", "FOREX")).toBe(Date.UTC(2026, 6, 7, 21));
  });

  it("FOREX weekend stubs belong to Monday's day, which opens Sunday 17:00 and gathers from Friday 17:00", () => {
    const monday = Date.UTC(2026, 0, 11, 22); // Sunday 2026-01-11 17:00 EST
    for (const stub of [Date.UTC(2026, 0, 9, 22), Date.UTC(2026, 0, 10, 12), Date.UTC(2026, 0, 11, 21), monday, Date.UTC(2026, 0, 12, 21)]) {
      expect(periodStart(stub, "d", "FOREX"), new Date(stub).toISOString()).toBe(monday);
    }
    expect(periodRange(monday, "d", "FOREX")).toEqual({ start: monday, from: Date.UTC(2026, 0, 9, 22), to: Date.UTC(2026, 0, 12, 22) });
    expect(periodRange(Date.UTC(2026, 0, 9, 21), "d", "FOREX").start).toBe(Date.UTC(2026, 0, 8, 22)); // Friday's day
    expect(periodRange(Date.UTC(2026, 0, 9, 21), "w", "FOREX")).toEqual({
      start: Date.UTC(2026, 0, 4, 22),
      from: Date.UTC(2026, 0, 2, 22),
      to: Date.UTC(2026, 0, 9, 22),
    });
  });

  it("the FOREX week over the spring change opens Sunday 17:00 EDT and closes Friday 17:00 EDT", () => {
    // DST starts Sunday 2026-03-08 at 02:00 EST.
    const range = periodRange(Date.UTC(2026, 2, 10, 12), "w", "FOREX");
    expect(range).toEqual({ start: Date.UTC(2026, 2, 8, 21), from: Date.UTC(2026, 2, 6, 22), to: Date.UTC(2026, 2, 13, 21) });
    expect(periodStart(Date.UTC(2026, 2, 8, 21), "d", "FOREX")).toBe(Date.UTC(2026, 2, 8, 21));
  });

  it("FOREX h4 bars open at 17:00, 21:00, 01:00, ... New York; h1 and finer on the hour", () => {
    expect(periodStart(Date.UTC(2026, 0, 7, 3), "h4", "FOREX")).toBe(Date.UTC(2026, 0, 7, 2)); // 21:00 EST
    expect(periodStart(Date.UTC(2026, 6, 8, 3), "h4", "FOREX")).toBe(Date.UTC(2026, 6, 8, 1)); // 21:00 EDT
    expect(periodStart(Date.UTC(2026, 0, 7, 3, 30), "h1", "FOREX")).toBe(Date.UTC(2026, 0, 7, 3));
    expect(isPeriodOpen(Date.UTC(2026, 0, 7, 2), "h4", "FOREX")).toBe(true);
    expect(isPeriodOpen(Date.UTC(2026, 0, 7, 0), "h4", "FOREX")).toBe(false);
    expect(isPeriodOpen(Date.UTC(2026, 0, 7, 0), "h4", "CRYPTO")).toBe(true);
    expect(isPeriodOpen(Date.UTC(2026, 0, 8, 22), "d", "FOREX")).toBe(true); // Thursday 17:00: Friday's day
    expect(isPeriodOpen(Date.UTC(2026, 0, 9, 22), "d", "FOREX")).toBe(false); // Friday 17:00: a stub, not a day
    expect(isPeriodOpen(Date.UTC(2026, 0, 11, 22), "w", "FOREX")).toBe(true);
    expect(isPeriodOpen(Date.UTC(2026, 0, 12), "w", "FOREX")).toBe(false);
  });

  it("is monotonic and idempotent at every hour of two years, every timeframe, both sessions", () => {
    const failures: string[] = [];
    for (const market of ["FOREX", "CRYPTO"]) {
      for (const tf of ["h1", "h4", "d", "w"] as const) {
        let previous = -Infinity;
        for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2027, 0, 1); t += H / 2) {
          const { start, from, to } = periodRange(t, tf, market);
          if (!(start >= previous) || !(t >= from && t < to) || periodStart(start, tf, market) !== start) {
            failures.push(`${market} ${tf} ${new Date(t).toISOString()}`);
          }
          previous = start;
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

/** Broker-time h1 bars: a week from Sunday 17:00 to Friday 17:00 New York, with stubs up to two hours either side, and gaps. */
function brokerH1(seed: number, from: number, to: number): Row[] {
  const rand = prng(seed);
  const out: Row[] = [];
  let price = 1.1;
  for (let t = from; t < to; t += H) {
    const [y, m, d, h] = ny(t);
    const dow = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
    const open = (dow === 0 && h >= 15) || (dow >= 1 && dow <= 4) || (dow === 5 && h < 19);
    if (!open || rand() < 0.04) continue;
    const o = price;
    const c = Math.round(o * (1 + (rand() - 0.5) * 0.004) * 1e5) / 1e5;
    out.push({ time: t, open: o, high: Math.max(o, c) + 0.0002, low: Math.min(o, c) - 0.0002, close: c, volume: Math.floor(rand() * 500) });
    price = c;
  }
  return out;
}

const toBars = (r: Row[]): Bars => ({
  time: Float64Array.from(r, (x) => x.time),
  open: Float64Array.from(r, (x) => x.open),
  high: Float64Array.from(r, (x) => x.high),
  low: Float64Array.from(r, (x) => x.low),
  close: Float64Array.from(r, (x) => x.close),
  volume: Float64Array.from(r, (x) => x.volume),
});

const rowsOf = (b: Bars): Row[] =>
  Array.from({ length: b.time.length }, (_, i) => ({ time: b.time[i]!, open: b.open[i]!, high: b.high[i]!, low: b.low[i]!, close: b.close[i]!, volume: b.volume[i]! }));

describe("deriveTimeframes on the FOREX session", () => {
  // 2026-02-20 .. 2026-03-21 crosses the spring change (March 8); 2026-10-20 .. 2026-11-20 the autumn one (November 1).
  for (const [name, from, to] of [
    ["spring", Date.UTC(2026, 1, 20), Date.UTC(2026, 2, 21)],
    ["autumn", Date.UTC(2026, 9, 20), Date.UTC(2026, 10, 20)],
  ] as const) {
    it(`derives d and w with stubs folded into Monday, across the ${name} change, as the independent aggregation`, () => {
      const h1 = brokerH1(name.length, from, to);
      const derived = deriveTimeframes({ symbol: "EURUSD", bars: { h1: toBars(h1) } }, { market: "FOREX", to: ["d", "w"] });
      expect(derived.bars.h4).toBeUndefined();
      expect(rowsOf(derived.bars.d!)).toEqual(aggregateByKey(h1, (t) => forexKey(t, "d")));
      expect(rowsOf(derived.bars.w!)).toEqual(aggregateByKey(h1, (t) => forexKey(t, "w")));
      // Five daily bars a week at most, none opening on a Friday or Saturday in New York.
      for (const row of rowsOf(derived.bars.d!)) {
        const [y, m, d, h] = ny(row.time);
        expect(h).toBe(17);
        expect([5, 6]).not.toContain(new Date(Date.UTC(y, m - 1, d)).getUTCDay());
      }
    });

    it(`derives h4 on 17:00 New York across the ${name} change, as the independent aggregation`, () => {
      // Weekdays only: weekend stubs over the changing night have no 4-hour grid to agree on.
      const h1 = brokerH1(7, from, to).filter((r) => {
        const [y, m, d] = ny(r.time);
        const dow = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
        return dow >= 1 && dow <= 4;
      });
      const derived = deriveTimeframes({ symbol: "EURUSD", bars: { h1: toBars(h1) } }, { market: "FOREX" });
      expect(rowsOf(derived.bars.h4!)).toEqual(aggregateByKey(h1, (t) => forexKey(t, "h4")));
    });
  }

  it("keeps CRYPTO on UTC days and Monday weeks, and keeps timeframes the instrument has", () => {
    const h1 = brokerH1(3, Date.UTC(2026, 0, 1), Date.UTC(2026, 1, 1));
    const own = toBars(h1.slice(0, 3));
    const derived = deriveTimeframes({ symbol: "BTCUSDT", bars: { h1: toBars(h1), w: own } }, { market: "CRYPTO" });
    const utcDay = (t: number) => Math.floor(t / DAY) * DAY;
    expect(rowsOf(derived.bars.d!)).toEqual(aggregateByKey(h1, utcDay));
    expect(derived.bars.w).toBe(own);
    expect(Object.keys(derived.bars).sort()).toEqual(["d", "h1", "h4", "w"]);
  });

  it("refuses bars out of order, and unknown timeframes", () => {
    const bad = toBars([
      { time: 2 * H, open: 1, high: 1, low: 1, close: 1, volume: 1 },
      { time: H, open: 1, high: 1, low: 1, close: 1, volume: 1 },
    ]);
    expect(() => deriveTimeframes({ symbol: "X", bars: { h1: bad } }, { market: "CRYPTO" })).toThrow(/strictly increasing/);
    expect(() => deriveTimeframes({ symbol: "X", bars: {} }, { market: "CRYPTO", to: ["d2" as Timeframe] })).toThrow(/unknown timeframe/);
  });
});
