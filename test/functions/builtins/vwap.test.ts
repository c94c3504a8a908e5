import { describe, expect, it } from "vitest";
import { vwap } from "../../../src/functions/builtins/vwap.js";
import { TIMEFRAME_MS } from "../../../src/types.js";
import { BARS, DAY, HOUR, MONDAY, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, inputsOf, latestThroughRun, type Columns } from "../../kit/index.js";

const WEEK = 7 * DAY;

/** Session VWAP written out: Σ(hlc3·volume)/Σvolume over the bars sharing the bar's session key. */
function sessionVwap(c: Columns, key: (t: number) => number): Float64Array {
  return c.close.map((_, i) => {
    let pv = 0;
    let v = 0;
    for (let j = i; j >= 0 && key(c.time[j]!) === key(c.time[i]!); j--) {
      pv += ((c.high[j]! + c.low[j]! + c.close[j]!) / 3) * c.volume[j]!;
      v += c.volume[j]!;
    }
    return v === 0 ? NaN : pv / v;
  });
}

describe("vwap", () => {
  it("resets at 00:00 UTC on intraday bars, worked by hand (TradingView's VWAP with the session anchor)", () => {
    // h1 bars at 22:00 and 23:00 on Monday, then 00:00 and 01:00 on Tuesday. Monday: hlc3 10 with
    // volume 100, then 12 with 300 → (1000 + 3600)/400 = 11.5. Tuesday starts afresh: 20 with 50,
    // then 30 with 150 → (1000 + 4500)/200 = 27.5.
    const t0 = MONDAY + 22 * HOUR;
    const c = columns({
      time: [t0, t0 + HOUR, t0 + 2 * HOUR, t0 + 3 * HOUR],
      high: [11, 13, 21, 31],
      low: [9, 11, 19, 29],
      close: [10, 12, 20, 30],
      volume: [100, 300, 50, 150],
    });
    expect(Array.from(evaluate(vwap, inputsOf(vwap, c), [], HOUR))).toEqual([10, 11.5, 20, 27.5]);
    expect(latestThroughRun("vwap", c)).toBe(27.5);
  });

  it("on daily bars anchors at Monday 00:00 UTC", () => {
    // Daily bars Saturday 6 Jan 2024 .. Tuesday 9 Jan: Saturday and Sunday belong to the week that
    // began on Monday 1 Jan; Monday 8 Jan starts a new one.
    const sat = MONDAY + 5 * DAY;
    const c = columns({
      time: [sat, sat + DAY, sat + 2 * DAY, sat + 3 * DAY],
      high: [11, 13, 21, 31],
      low: [9, 11, 19, 29],
      close: [10, 12, 20, 30],
      volume: [100, 300, 50, 150],
    });
    expect(Array.from(evaluate(vwap, inputsOf(vwap, c), [], DAY))).toEqual([10, 11.5, 20, 27.5]);
    expect(latestThroughRun("vwap", c, "d")).toBe(27.5);
    // The same bars read as h4 would be four separate days.
    expect(Array.from(evaluate(vwap, inputsOf(vwap, c), [], TIMEFRAME_MS.h4))).toEqual([10, 12, 20, 30]);
  });

  it("on weekly bars is each bar's own hlc3, volume or not", () => {
    const c = columns({
      time: [MONDAY, MONDAY + WEEK, MONDAY + 2 * WEEK],
      high: [12, 13, 20],
      low: [9, 11, 18],
      close: [9, 12, 19],
      volume: [100, 0, 5],
    });
    expect(Array.from(evaluate(vwap, inputsOf(vwap, c), [], WEEK))).toEqual([10, 12, 19]);
    expect(latestThroughRun("vwap", c, "w")).toBe(19);
  });

  it("is the session definition at every bar on hourly walks", () => {
    for (const bars of [...BARS, ...PLAIN]) {
      expectClose(evaluate(vwap, inputsOf(vwap, bars), [], HOUR), sessionVwap(bars, (t) => Math.floor(t / DAY)), { rel: 1e-12, floor: 1e-300 }, "vwap h1");
    }
  });

  it("is undefined while the session has no volume, and a NaN bar spoils only the rest of its session", () => {
    // The shared bars have zero volume on bars 20..29 (hours 20..23 of day 0 then 0..5 of day 1).
    const quiet = evaluate(vwap, inputsOf(vwap, BARS[0]!), [], HOUR);
    expect(quiet[19]).not.toBeNaN();
    expect(quiet[20]).not.toBeNaN(); // day 0 had volume before
    for (let i = 24; i < 30; i++) expect(quiet[i]).toBeNaN();
    expect(quiet[30]).not.toBeNaN();
    const holed = evaluate(vwap, inputsOf(vwap, columnsWithNaN(PLAIN[0]!, [100])), [], HOUR);
    const clean = evaluate(vwap, inputsOf(vwap, PLAIN[0]!), [], HOUR);
    expect(holed[99]).toBe(clean[99]);
    for (let i = 100; i < 120; i++) expect(holed[i]).toBeNaN();
    for (let i = 120; i < holed.length; i++) expect(holed[i]).toBe(clean[i]);
  });

  it("is defined from bar 0 (L = 1), keeps the kernel contract, and starts a session at the first bar given", () => {
    for (const bars of PLAIN) checkContract(vwap, inputsOf(vwap, bars), []);
    // Bars from 12:00: the first session is counted from the first bar given.
    const bars = PLAIN[0]!;
    const late = { ...bars, time: bars.time.map((t) => t + 12 * HOUR) };
    const out = evaluate(vwap, inputsOf(vwap, late), [], HOUR);
    expect(out[0]).toBeCloseTo((bars.high[0]! + bars.low[0]! + bars.close[0]!) / 3, 12);
  });

  it("asks for one session of warm-up: a UTC day of bars intraday, a week of days on d, none on w", () => {
    expect(vwap.warmup!([], TIMEFRAME_MS.m1)).toBe(1439);
    expect(vwap.warmup!([], TIMEFRAME_MS.h1)).toBe(23);
    expect(vwap.warmup!([], TIMEFRAME_MS.h4)).toBe(5);
    expect(vwap.warmup!([], TIMEFRAME_MS.d)).toBe(6);
    expect(vwap.warmup!([], TIMEFRAME_MS.w)).toBe(0);
  });
});
