/**
 * `meta` of a run (decisions §2): instruments considered, matched before limit, instruments
 * skipped for short history or missing data, and the open time of the latest base bar evaluated.
 */
import { describe, expect, it } from "vitest";
import { compile, type Instrument } from "../../src/index.js";
import { DAY, emptyBars, HOUR, MONDAY, tickWalk } from "../kit/index.js";

const header = 'market = "CRYPTO"\ntimeframe = h1\n';
const meta = (body: string, universe: Iterable<Instrument>) => compile(header + body).run(universe).meta;

describe("run meta", () => {
  it("an empty universe: nothing considered, asOf null", () => {
    expect(meta("true", [])).toEqual({ instruments: 0, matched: 0, skipped: { shortHistory: 0, noData: 0 }, asOf: null });
  });

  it("counts matches before limit and gives the newest base bar evaluated", () => {
    const u: Instrument[] = [0, 1, 2].map((i) => ({
      symbol: `S${i}`,
      bars: { h1: tickWalk({ seed: i + 1, count: 30 + i, timeframe: "h1" }) },
    }));
    const result = compile(header + "limit = 1\ntrue").run(u);
    expect(result.results).toHaveLength(1);
    expect(result.meta).toEqual({
      instruments: 3,
      matched: 3,
      skipped: { shortHistory: 0, noData: 0 },
      asOf: new Date(MONDAY + 31 * HOUR).toISOString(),
    });
  });

  it("short history: fewer base bars than minLookback are skipped and not evaluated", () => {
    const u: Instrument[] = [
      { symbol: "LONG", bars: { h1: tickWalk({ seed: 1, count: 40, timeframe: "h1" }) } },
      { symbol: "SHORT", bars: { h1: tickWalk({ seed: 2, count: 10, timeframe: "h1", start: MONDAY + 100 * HOUR }) } },
    ];
    const m = meta("sma(20) > 0", u);
    // SHORT's newer bars were not evaluated, so asOf is LONG's latest bar.
    expect(m).toEqual({ instruments: 2, matched: 1, skipped: { shortHistory: 1, noData: 0 }, asOf: new Date(MONDAY + 39 * HOUR).toISOString() });
  });

  it("a missing or empty timeframe is noData, which wins over short history", () => {
    const h1 = tickWalk({ seed: 3, count: 24 * 30, timeframe: "h1" });
    const u: Instrument[] = [
      { symbol: "NOD", bars: { h1 } },
      { symbol: "EMPTYD", bars: { h1, d: emptyBars(0) } },
      { symbol: "SHORTH1_NOD", bars: { h1: tickWalk({ seed: 4, count: 2, timeframe: "h1" }) } },
      { symbol: "SHORTD", bars: { h1, d: tickWalk({ seed: 5, count: 3, timeframe: "d" }) } },
      { symbol: "NOTHING", bars: {} },
    ];
    const m = meta("d::sma(5) > 0", u);
    expect(m).toEqual({ instruments: 5, matched: 0, skipped: { shortHistory: 1, noData: 4 }, asOf: null });
  });

  it("evaluated but not matched is neither matched nor skipped", () => {
    const u: Instrument[] = [{ symbol: "A", bars: { h1: tickWalk({ seed: 9, count: 5, timeframe: "h1" }), d: tickWalk({ seed: 9, count: 5, timeframe: "d", start: MONDAY - 10 * DAY }) } }];
    expect(meta("close < 0", u)).toEqual({ instruments: 1, matched: 0, skipped: { shortHistory: 0, noData: 0 }, asOf: new Date(MONDAY + 4 * HOUR).toISOString() });
  });
});
