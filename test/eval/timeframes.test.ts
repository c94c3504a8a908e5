/**
 * Multi-timeframe alignment (decisions §1 "Evaluation"): at a base bar, `tf::expr` takes its
 * value at the latest tf bar closed by the time the base bar closes. Coarser bars in progress
 * are ignored; finer bars are the last inside the base bar; days open 00:00 UTC and weeks
 * Monday 00:00 UTC. Bars are one fine walk aggregated exactly, cut at many points in time, so
 * the coarser bar in progress is always present and must be ignored.
 */
import { describe, expect, it } from "vitest";
import { compile, type Timeframe } from "../../src/index.js";
import { aggregate, barsBefore, cutInstrument, DAY, HOUR, MINUTE, MONDAY, multiTimeframe, tickWalk, WEEK } from "../kit/index.js";
import {
  ago, atr, close, close9, crossover, crossunder, ema, expectedRun, ge, gt, high, highest, mul, num, on, queryText, rsi, sma, sub,
  TRUE, type RefQuery,
} from "./reference.js";

const header = (tf: Timeframe) => `market = "CRYPTO"\ntimeframe = ${tf}\n`;

describe("a coarser timeframe on h1: d::close", () => {
  const days = 6;
  const h1 = tickWalk({ seed: 1, count: days * 24, timeframe: "h1", start: MONDAY });
  const inst = { symbol: "A", bars: { h1, d: aggregate(h1, "d") } };
  const q = compile(header("h1") + "columns = [d::close]\ntrue");

  it("at every h1 bar it is the previous completed day's close, and at 23:00 that same day's close", () => {
    let checked = 0;
    for (let k = 1; k <= days * 24; k++) {
      const cut = cutInstrument(inst, "h1", MONDAY + k * HOUR);
      const last = cut.bars.h1!.time.length - 1;
      const t = cut.bars.h1!.time[last]!;
      const hour = (t % DAY) / HOUR;
      const results = q.run([cut]).results;
      // The d bar of the current day is in the data, in progress, unless the day just closed.
      expect(cut.bars.d!.time.at(-1)).toBe(t - (t % DAY));
      if (hour !== 23 && t < MONDAY + DAY) {
        expect(results).toEqual([]); // no completed day yet
        continue;
      }
      const expected = hour === 23 ? h1.close[last]! : h1.close[(t - (t % DAY)) / HOUR - MONDAY / HOUR - 1]!;
      expect(results, `at ${new Date(t).toISOString()}`).toEqual([{ symbol: "A", columns: { "d::close": expected } }]);
      checked++;
    }
    expect(checked).toBe(days * 24 - 23);
  });

  it("changing the in-progress day's bar changes nothing", () => {
    const cut = cutInstrument(inst, "h1", MONDAY + 3 * DAY + 10 * HOUR);
    const before = q.run([cut]).results;
    const d = cut.bars.d!;
    d.close[d.close.length - 1] = 1e9;
    d.high[d.high.length - 1] = 1e9;
    expect(q.run([cut]).results).toEqual(before);
  });

  it("(d::close)[1] is d::close one h1 bar ago; d::close[1] is the daily close before the aligned one", () => {
    const c = compile(header("h1") + "columns = [d::close, (d::close)[1], d::close[1]]\ntrue");
    const dayClose = (day: number) => h1.close[day * 24 + 23]!;
    const at = (day: number, hour: number) =>
      c.run([cutInstrument(inst, "h1", MONDAY + day * DAY + (hour + 1) * HOUR)]).results[0]!.columns;
    // 10:00 of day 3: aligned day is 2; one h1 bar ago (09:00) also day 2; the close before it is day 1.
    expect(at(3, 10)).toEqual({ "d::close": dayClose(2), "(d::close)[1]": dayClose(2), "d::close[1]": dayClose(1) });
    // 00:00 of day 3: one bar ago is 23:00 of day 2, whose close ended day 2.
    expect(at(3, 0)).toEqual({ "d::close": dayClose(2), "(d::close)[1]": dayClose(2), "d::close[1]": dayClose(1) });
    // 23:00 of day 3 closes day 3; one bar ago (22:00) day 3 was still in progress.
    expect(at(3, 23)).toEqual({ "d::close": dayClose(3), "(d::close)[1]": dayClose(2), "d::close[1]": dayClose(2) });
  });
});

describe("weeks open Monday 00:00 UTC", () => {
  // Daily bars from a Monday: 52 complete weeks, then Monday..Wednesday of week 53 in progress.
  function daily(count: number) {
    const d = tickWalk({ seed: 2, count, timeframe: "d", start: MONDAY - 52 * WEEK });
    for (let i = 52 * 7; i < count; i++) d.high[i] = 1e6; // only an in-progress week sees this
    return d;
  }

  it("w::highest(high, 52) uses only the completed weeks, and close >= it compares against them", () => {
    const d = daily(52 * 7 + 3);
    let completedMax = -Infinity;
    for (let i = 0; i < 52 * 7; i++) completedMax = Math.max(completedMax, d.high[i]!);
    d.close[d.close.length - 1] = completedMax; // at the highest high exactly: >= holds
    const w = aggregate(d, "w");
    expect(w.time.length).toBe(53);
    const c = compile(header("d") + "columns = [w::highest(high, 52)]\nclose >= w::highest(high, 52)");
    expect(c.run([{ symbol: "A", bars: { d, w } }]).results).toEqual([{ symbol: "A", columns: { "w::highest(high, 52)": completedMax } }]);
    d.close[d.close.length - 1] = completedMax - 0.01;
    expect(c.run([{ symbol: "A", bars: { d, w } }]).results).toEqual([]);
  });

  it("a week counts once its Sunday bar has closed; with 51 completed weeks the instrument is left out", () => {
    const c = compile(header("d") + "columns = [w::highest(high, 52)]\ntrue");
    const run = (count: number) => {
      const d = daily(count);
      return c.run([{ symbol: "A", bars: { d, w: aggregate(d, "w") } }]).results;
    };
    expect(run(52 * 7)).toHaveLength(1); // ends on Sunday: the 52nd week just closed
    expect(run(52 * 7 - 1)).toEqual([]); // ends Saturday: 51 completed weeks and one in progress
    expect(run(52 * 7 + 6)).toHaveLength(1);
  });

  it("on h4, w::close changes at the bar that closes at Monday 00:00 (Sunday 20:00), not before", () => {
    const h4 = tickWalk({ seed: 3, count: 3 * 42, timeframe: "h4", start: MONDAY });
    const inst = { symbol: "A", bars: { h4, w: aggregate(h4, "w") } };
    const c = compile(header("h4") + "columns = [w::close]\ntrue");
    const at = (end: number) => c.run([cutInstrument(inst, "h4", end)]).results;
    expect(at(MONDAY + WEEK - 4 * HOUR)).toEqual([]); // Sunday 16:00: the first week is still in progress
    expect(at(MONDAY + WEEK)).toEqual([{ symbol: "A", columns: { "w::close": h4.close[41] } }]); // Sunday 20:00 bar
    expect(at(MONDAY + 2 * WEEK - 4 * HOUR)).toEqual([{ symbol: "A", columns: { "w::close": h4.close[41] } }]);
    expect(at(MONDAY + 2 * WEEK)).toEqual([{ symbol: "A", columns: { "w::close": h4.close[83] } }]);
    expect(at(MONDAY + 2 * WEEK + 4 * HOUR)).toEqual([{ symbol: "A", columns: { "w::close": h4.close[83] } }]);
  });
});

describe("a finer timeframe: m15 on h1", () => {
  const m15 = tickWalk({ seed: 4, count: 4 * 96, timeframe: "m15", start: MONDAY });
  const q = compile(header("h1") + "columns = [m15::close, m15::close[1], (m15::close)[1], m15::sma(4), m15::highest(high, 4) == high]\ntrue");

  it("is the last m15 bar inside the h1 bar, whether the h1 bar is complete or in progress", () => {
    for (let n = 8; n <= m15.time.length; n++) {
      const m = barsBefore(m15, MONDAY + n * 15 * MINUTE);
      const h1 = aggregate(m, "h1");
      const complete = n % 4 === 0;
      const [row] = q.run([{ symbol: "A", bars: { h1, m15: m } }]).results;
      const prevHourLast = n - (n % 4 || 4) - 1; // last m15 of the previous h1 bar
      const cols = row!.columns;
      expect(cols["m15::close"]).toBe(m.close[n - 1]);
      expect(cols["m15::close[1]"]).toBe(m.close[n - 2]);
      expect(cols["(m15::close)[1]"]).toBe(m.close[prevHourLast]);
      expect(cols["(m15::close)[1]"]).toBe(h1.close[h1.time.length - 2]);
      if (complete) {
        expect(close9(cols["m15::sma(4)"]!, (m.close[n - 1]! + m.close[n - 2]! + m.close[n - 3]! + m.close[n - 4]!) / 4)).toBe(true);
        expect(cols["m15::highest(high, 4) == high"]).toBe(1);
      }
    }
  });

  it("m15 bars after the base bar's close are not read", () => {
    const h1 = aggregate(barsBefore(m15, MONDAY + 10 * HOUR), "h1"); // last h1 bar 09:00, complete
    const [row] = q.run([{ symbol: "A", bars: { h1, m15 } }]).results;
    expect(row!.columns["m15::close"]).toBe(m15.close[10 * 4 - 1]);
    expect(row!.columns["m15::close"]).toBe(h1.close[9]);
  });
});

describe("across timeframes against the reference, at many points in time", () => {
  // Four instruments from one m15 walk each, starting on a Wednesday (a partial first week).
  const START = MONDAY + 2 * DAY;
  const tfs: Timeframe[] = ["m15", "h1", "h4", "d", "w"];
  const instruments = Array.from({ length: 4 }, (_, i) => multiTimeframe(`S${i}`, 40 + i, "m15", 23 * 96, tfs, { start: START }));
  // Every 5th hour over the last 16 days, plus day and week boundaries and bars in progress.
  const cuts: number[] = [];
  for (let h = 7 * 24; h <= 23 * 24; h += 5) cuts.push(START + h * HOUR);
  const week2 = MONDAY + WEEK;
  const week3 = MONDAY + 2 * WEEK;
  cuts.push(week2, week2 + 15 * MINUTE, week2 - 45 * MINUTE, week3, week3 + HOUR, week3 - HOUR + 30 * MINUTE, START + 10 * DAY + 23 * HOUR + 45 * MINUTE);

  const dsma5 = on("d", sma(5));
  const cases: { name: string; q: RefQuery; mustMatch?: boolean }[] = [
    { name: "crossover(close, d::sma(5))", q: { timeframe: "h1", condition: crossover(close, dsma5), columns: [dsma5, ago(dsma5, 1), close] }, mustMatch: true },
    { name: "crossunder(close, h4::ema(close, 6))", q: { timeframe: "h1", condition: crossunder(close, on("h4", ema(close, 6))), columns: [on("h4", ema(close, 6))] }, mustMatch: true },
    { name: "crossover(h4::ema(3), d::sma(3))", q: { timeframe: "h1", condition: crossover(on("h4", ema(3)), on("d", sma(3))), columns: [on("h4", ema(3)), on("d", sma(3))] } },
    { name: "close > d::close[1] vs (d::close)[1]", q: { timeframe: "h1", condition: gt(close, on("d", ago(close, 1))), columns: [on("d", ago(close, 1)), ago(on("d", close), 1), ago(on("d", close), 30)] } },
    { name: "h4::rsi(7) > 50", q: { timeframe: "h1", condition: gt(on("h4", rsi(7)), num(50)), columns: [on("h4", rsi(7)), ago(on("h4", rsi(7)), 3)] } },
    { name: "close >= w::highest(high, 2)", q: { timeframe: "h1", condition: ge(close, mul(on("w", highest(high, 2)), num(0.97))), columns: [on("w", highest(high, 2))] } },
    { name: "nested prefixes", q: { timeframe: "h1", condition: TRUE, columns: [on("d", on("w", close)), on("w", on("d", close)), on("h4", on("d", on("w", close))), on("d", on("h1", close)), on("d", on("m15", close)), on("h4", ago(on("d", close), 1))] } },
    { name: "m15 inside h1", q: { timeframe: "h1", condition: gt(on("m15", close), on("m15", ago(close, 1))), columns: [on("m15", sma(4)), on("m15", close), on("m15", ago(close, 5))] } },
    { name: "arithmetic across timeframes", q: { timeframe: "h1", condition: gt(sub(close, on("d", close)), mul(on("d", atr(3)), num(0.1))), columns: [on("d", atr(3)), sub(close, on("d", close))], sort: [[on("d", atr(3)), "desc"]] } },
    { name: "h4 base with d and w", q: { timeframe: "h4", condition: gt(close, on("d", sma(3))), columns: [on("d", sma(3)), on("w", close), on("h1", close)] } },
    { name: "d base with w and h1", q: { timeframe: "d", condition: crossover(close, on("w", close)), columns: [on("w", close), on("h1", ago(close, 3)), ago(on("w", close), 2)] } },
  ];

  for (const { name, q, mustMatch } of cases) {
    it(name, () => {
      const text = queryText(q);
      const compiled = compile(text);
      let matches = 0;
      for (const end of cuts) {
        const u = instruments.map((inst) => cutInstrument(inst, "m15", end));
        const expected = expectedRun(q, u);
        const { results } = compiled.run(u);
        const at = `${text}\nat ${new Date(end).toISOString()}`;
        expect(results.map((r) => r.symbol), at).toEqual(expected.map((r) => r.symbol));
        results.forEach((r, i) => {
          for (const [key, want] of Object.entries(expected[i]!.columns)) {
            if (!close9(r.columns[key]!, want, 100)) expect.fail(`${at}: ${r.symbol} '${key}' = ${r.columns[key]}, reference ${want}`);
          }
        });
        matches += results.length;
      }
      if (mustMatch) expect(matches).toBeGreaterThan(0);
    });
  }
});

describe("nested prefixes", () => {
  it("d::(w::close) is the close of the last week completed by the last completed day", () => {
    const inst = multiTimeframe("A", 9, "h1", 24 * 20, ["h1", "d", "w"], { start: MONDAY });
    const h1 = inst.bars.h1!;
    const c = compile(header("h1") + "columns = [d::(w::close), w::(d::close), d::(w::close[1]), w::(h1::close)]\ntrue");
    // Monday of week 3, 05:00: the last completed day is Sunday of week 2, which completed week 2.
    const cut = cutInstrument(inst, "h1", MONDAY + 2 * WEEK + 6 * HOUR);
    const weekClose = (w: number) => h1.close[(w + 1) * 7 * 24 - 1]!;
    expect(c.run([cut]).results[0]!.columns).toEqual({
      "d::(w::close)": weekClose(1),
      "w::(d::close)": weekClose(1),
      "d::(w::close[1])": weekClose(0),
      "w::(h1::close)": weekClose(1),
    });
    // Sunday of week 3, 12:00: the last completed day (Saturday) has not completed week 3.
    const cut2 = cutInstrument(inst, "h1", MONDAY + 3 * WEEK - 11 * HOUR);
    expect(c.run([cut2]).results[0]!.columns["d::(w::close)"]).toBe(weekClose(1));
  });

  it("deep and repeated prefixes validate and run", () => {
    const inst = multiTimeframe("A", 10, "m15", 96 * 16, ["m15", "h1", "h4", "d", "w"], { start: MONDAY });
    for (const cond of ["w::(d::(h4::(h1::(m15::close)))) > 0", "m15::(h1::(h4::(d::(w::close)))) > 0", "d::(d::(d::close)) == d::close", "h1::close == close"]) {
      const { results } = compile(header("h1") + cond).run([inst]);
      expect(results.map((r) => r.symbol), cond).toEqual(["A"]);
    }
  });
});
