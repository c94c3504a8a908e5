/**
 * The chart's column lines (src/playground/overlay.ts) are the service's numbers: at each bar t,
 * the screen's columns evaluated from its anchors at t (decisions §9), exactly what
 * `POST /xql/history` gives at t — across the bars where the anchor moves.
 */
import { describe, expect, it } from "vitest";
import { compile, historyAnchoredAsync } from "../../src/api.js";
import { chartBars, columnHistory } from "../../src/playground/overlay.js";
import { HOUR, MONDAY, tickWalk } from "../kit/index.js";

describe("columnHistory", () => {
  it("draws each column at bar t as the service's history gives it there", async () => {
    const text = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [rsi(14), ema(close, 30), obv]\nrsi(14) > 0';
    const instrument = { symbol: "AAA", bars: { h1: tickWalk({ seed: 3, count: 900, timeframe: "h1", start: MONDAY }) } };
    const lines = columnHistory(text, instrument, "h1", 400);
    // The chart reads the bars back to the anchor of its latest bar: (1 + 1)·300 + 3 on CRYPTO.
    expect(chartBars(text, "h1")).toBe(603);
    expect(chartBars(text, "d")).toBe(1);
    const { result } = await historyAnchoredAsync(compile(text), [instrument], { bars: 400 });
    expect(result.matches.length).toBeGreaterThan(350);
    const time = instrument.bars.h1.time;
    // The anchor moves every 300 bars: the window crosses at least one move.
    const q = compile(text);
    expect(q.anchor("h1", time[500]!)).not.toBe(q.anchor("h1", time[899]!));
    for (const m of result.matches) {
      const k = (m.time - time[500]!) / HOUR;
      for (const [column, value] of Object.entries(m.columns)) expect(lines.get(column)![k], `${column} at bar ${k}`).toBe(value);
    }
  });
});
