/**
 * Lookback per decisions §1 "Lookback", against numbers derived by hand from the rules:
 * a series needs 1; windows L(src) + n − 1; ema L(src) + n − 1; rsi and atr L(src) + n;
 * x[k], roc and change L(x) + k; crossover max(L(a), L(b)) + 1; macd the slow EMA plus
 * signal − 1; an offset of k outside `tf::` adds ceil(k · dur(outer) / dur(tf)) inside.
 */
import { describe, expect, it } from "vitest";
import { explain } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import { check } from "../../src/check/check.js";
import { XqlError } from "../../src/errors.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { innerOffset, planQuery } from "../../src/plan/plan.js";
import type { Plan, Timeframe } from "../../src/types.js";

function plan(condition: string, timeframe: Timeframe = "h1", ceiling?: number): Plan {
  const text = `market = "FOREX"\ntimeframe = ${timeframe}\n${condition}`;
  return planQuery(check(parse(text), text), ceiling).plan;
}

const lookback = (condition: string, timeframe: Timeframe = "h1"): Record<string, number> =>
  Object.fromEntries(plan(condition, timeframe).sources.map((s) => [s.timeframe, s.minLookback]));

describe("lookback of every function", () => {
  const cases: [string, number][] = [
    ["close > 0", 1],
    ["sma(20) > 0", 20],
    ["sma(open, 50) > 0", 50],
    ["avg(volume, 20) > 0", 20],
    ["ema(close, 9) > 0", 9],
    ["ema(1) > 0", 1],
    ["wma(20) > 0", 20],
    ["rsi(14) < 30", 15],
    ["rsi(close, 2) < 30", 3],
    ["highest(20) > 0", 20],
    ["lowest(low, 5) > 0", 5],
    ["crossover(close, sma(50))", 51],
    ["crossunder(ema(close, 9), ema(close, 21))", 22],
    ["crossover(ema(close, 9), ema(close, 21))", 22],
    ["atr(14) > 0", 15],
    ["atr(1) > 0", 2],
    ["stdev(20) > 0", 20],
    ["bb_upper(20, 2) > 0", 20],
    ["bb_lower(close, 10, -1.5) > 0", 10],
    ["macd(12, 26) > 0", 26],
    ["macd(26, 12) > 0", 26],
    ["macd_signal(12, 26, 9) > 0", 34],
    ["macd_hist(12, 26, 9) > 0", 34],
    ["macd_hist(close, 3, 5, 1) > 0", 5],
    ["roc(10) > 0", 11],
    ["change(close, 5) > 0", 6],
    ["abs(close) > 0", 1],
    ["min(open, close) > 0", 1],
    ["max(high, sma(low, 3)) > 0", 3],
    ["close[3] > 0", 4],
    ["close[0] > 0", 1],
  ];

  it.each(cases)("%s needs %i bars", (condition, bars) => {
    expect(lookback(condition)).toEqual({ h1: bars });
  });

  it("composes through nesting", () => {
    expect(lookback("rsi(sma(10), 14) > 0")).toEqual({ h1: 24 });
    expect(lookback("ema(rsi(14), 9) > 0")).toEqual({ h1: 23 });
    expect(lookback("abs(change(close, 1)) > 0")).toEqual({ h1: 2 });
    expect(lookback("roc(close[2], 3) > 0")).toEqual({ h1: 6 });
    expect(lookback("sma(close[1], 3)[2] > 0")).toEqual({ h1: 6 });
    expect(lookback("crossover(rsi(14), 30)")).toEqual({ h1: 16 });
    expect(lookback("macd(hl2, 5, 35) > 0")).toEqual({ h1: 35 });
  });

  // Every module, whatever its parameters: on raw inputs L = 1 + extraLookback, on an input
  // needing 5 bars L = 5 + extraLookback (implicit columns count as inputs with L = 1), and the
  // raw series read are the arguments' and the implicit columns'.
  it.each([...FUNCTIONS.values()].map((fn) => [fn.name, fn] as const))("module %s plans by its extraLookback", (_name, fn) => {
    const lengths = [6, 11, 4, 8, 3, 5];
    let nth = 0;
    const consts: number[] = [];
    const args = (input: string) =>
      fn.params.map((p) => {
        switch (p.kind) {
          case "series":
            return input;
          case "condition":
            return `${input} > 0`;
          case "length": {
            const n = Math.min(lengths[nth++ % lengths.length]!, p.max ?? Infinity);
            consts.push(n);
            return String(n);
          }
          case "number": {
            const k = p.samples?.[0] ?? 2;
            consts.push(k);
            return String(k);
          }
        }
      });
    const call = (input: string): string => (fn.params.length === 0 ? fn.name : `${fn.name}(${args(input).join(", ")})`);
    const use = (c: string): string => (fn.result === "boolean" ? c : `${c} > 0`);
    const onRaw = call("volume");
    const extra = fn.extraLookback(consts);
    const raw = plan(use(onRaw)).sources[0]!;
    expect(raw.minLookback).toBe(1 + extra);
    const reads = new Set<string>(fn.implicit.filter((c) => c !== "time"));
    if (fn.params.some((p) => p.kind === "series" || p.kind === "condition")) reads.add("volume");
    expect(raw.series).toEqual([...reads].sort());
    if (fn.params.some((p) => p.kind === "series" || p.kind === "condition")) {
      nth = 0;
      consts.length = 0;
      expect(plan(use(call("sma(volume, 5)"))).sources[0]!.minLookback).toBe(5 + extra);
    }
  });
});

describe("lookback across timeframes", () => {
  it("counts an offset outside a coarser prefix in coarse bars, rounded up", () => {
    expect(lookback("(d::close)[1] > 0")).toEqual({ h1: 2, d: 2 });
    expect(lookback("(d::close)[25] > 0")).toEqual({ h1: 26, d: 3 });
    expect(lookback("(w::close)[2] > 0", "d")).toEqual({ d: 3, w: 2 });
  });

  it("counts an offset outside a finer prefix in fine bars", () => {
    expect(lookback("m15::close[1] > 0")).toEqual({ h1: 1, m15: 2 });
    expect(lookback("(m15::close)[1] > 0")).toEqual({ h1: 2, m15: 5 });
    expect(lookback("(h1::close)[2] > 0", "h4")).toEqual({ h4: 3, h1: 9 });
    expect(lookback("(d::close)[3] > 0", "w")).toEqual({ w: 4, d: 22 });
  });

  it("evaluates a prefixed function on its own timeframe", () => {
    expect(lookback("d::atr(14) > 0")).toEqual({ h1: 1, d: 15 });
    expect(lookback("close > d::sma(200) and rsi(14) < 30")).toEqual({ h1: 15, d: 200 });
    expect(lookback("crossover(close, d::close)")).toEqual({ h1: 2, d: 2 });
  });

  it("the innermost prefix wins", () => {
    expect(lookback("d::w::close > 0")).toEqual({ h1: 1, d: 1, w: 1 });
    expect(lookback("w::d::close[1] > 0")).toEqual({ h1: 1, d: 2, w: 1 });
  });

  it("converts offsets with ceil(k · dur(outer) / dur(inner))", () => {
    expect(innerOffset(0, "w", "m1")).toBe(0);
    expect(innerOffset(1, "h1", "m15")).toBe(4);
    expect(innerOffset(1, "h1", "d")).toBe(1);
    expect(innerOffset(24, "h1", "d")).toBe(1);
    expect(innerOffset(25, "h1", "d")).toBe(2);
    expect(innerOffset(1, "w", "d")).toBe(7);
    expect(innerOffset(1, "d", "m1")).toBe(1440);
  });
});

describe("sources", () => {
  it("lists the base first, then by duration", () => {
    expect(plan("w::close > 0 and m1::close > 0 and d::close > 0 and m30::close > 0", "h4").sources.map((s) => s.timeframe)).toEqual([
      "h4",
      "m1",
      "m30",
      "d",
      "w",
    ]);
  });

  it("always lists the base timeframe, even when it reads no series", () => {
    expect(plan("true").sources).toEqual([{ timeframe: "h1", series: [], minLookback: 1 }]);
    expect(plan("d::close > 1").sources[0]).toEqual({ timeframe: "h1", series: [], minLookback: 1 });
  });

  it("sorts the raw series and expands derived ones", () => {
    expect(plan("volume > 0 and hl2 > 0").sources[0]!.series).toEqual(["high", "low", "volume"]);
    expect(plan("ohlc4 > 0").sources[0]!.series).toEqual(["close", "high", "low", "open"]);
    expect(plan("hlc3 > 0").sources[0]!.series).toEqual(["close", "high", "low"]);
    expect(plan("atr(3) > 0").sources[0]!.series).toEqual(["close", "high", "low"]);
    expect(plan("highest(3) > lowest(3)").sources[0]!.series).toEqual(["high", "low"]);
  });

  it("counts columns and sort keys", () => {
    const text = 'market = "FOREX"\ntimeframe = h1\ncolumns = [sma(volume, 40)]\nsort = d::rsi(20) desc\ntrue';
    expect(planQuery(check(parse(text), text)).plan.sources).toEqual([
      { timeframe: "h1", series: ["volume"], minLookback: 40 },
      { timeframe: "d", series: ["close"], minLookback: 21 },
    ]);
  });

  it("counts lets only where they are used", () => {
    const text = 'market = "FOREX"\ntimeframe = h1\nlet unused = w::sma(50)\nlet used = d::close\nused > 0';
    expect(planQuery(check(parse(text), text)).plan.sources.map((s) => s.timeframe)).toEqual(["h1", "d"]);
  });
});

describe("plan errors", () => {
  const planError = (text: string, ceiling?: number): XqlError => {
    try {
      planQuery(check(parse(text), text), ceiling);
    } catch (error) {
      return error as XqlError;
    }
    throw new Error("expected a plan error");
  };

  it("reports the ceiling with the spec's message and no position", () => {
    const e = planError('market = "FOREX"\ntimeframe = h1\nclose > d::sma(400)');
    expect(e.body).toEqual({ type: "plan", message: "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars" });
    expect(e.stage).toBe("plan");
  });

  it("allows exactly the ceiling", () => {
    expect(lookback("d::sma(300) > 0")).toEqual({ h1: 1, d: 300 });
  });

  it("honours a custom ceiling", () => {
    expect(planError('market = "FOREX"\ntimeframe = h1\nrsi(14) < 30', 14).message).toBe(
      "Lookback of 15 bars on timeframe h1 exceeds the ceiling of 14 bars",
    );
    expect(plan("rsi(14) < 30", "h1", 15).sources[0]!.minLookback).toBe(15);
  });

  it("reports missing settings, market first", () => {
    expect(planError("close > 0").body).toEqual({ type: "plan", message: "Missing required setting 'market', e.g. market = \"FOREX\"" });
    expect(planError('market = "FOREX"\nclose > 0').body).toEqual({ type: "plan", message: "Missing required setting 'timeframe', e.g. timeframe = h1" });
  });
});

describe("explanation", () => {
  const explanation = (body: string): string => {
    const result = explain(`market = "FOREX"\ntimeframe = h1\n${body}`);
    if ("valid" in result) throw new Error(result.error.message);
    return result.explanation;
  };

  it("renders the spec's example exactly", () => {
    expect(explanation("columns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nlet avgv = avg(volume, 20)\nrsi(14) < 30 and volume > avgv * 2")).toBe(
      "Matches when rsi(14) < 30 and volume > avgv * 2, where avgv = avg(volume, 20). Returns close, rsi(14), sorted by rsi(14) ascending, at most 20 results.",
    );
  });

  it("says only what the query has", () => {
    expect(explanation("rsi(14)<30")).toBe("Matches when rsi(14) < 30.");
    expect(explanation("sort = close desc\ntrue")).toBe("Matches when true. Returns results sorted by close descending.");
    expect(explanation("limit = 3\ntrue")).toBe("Matches when true. Returns at most 3 results.");
    expect(explanation("limit = 1\ntrue")).toBe("Matches when true. Returns at most 1 result.");
    expect(explanation("sort = close\nlimit = 1\ntrue")).toBe("Matches when true. Returns results sorted by close ascending, at most 1 result.");
    expect(explanation("columns = [close]\nlimit = 2\ntrue")).toBe("Matches when true. Returns close, at most 2 results.");
  });

  it("joins sort keys with 'then by' and lists every let", () => {
    expect(explanation("sort = rsi(14) asc, volume desc\nlet a = 1\nlet b = a + 1\nclose > b")).toBe(
      "Matches when close > b, where a = 1, b = a + 1. Returns results sorted by rsi(14) ascending, then by volume descending.",
    );
  });

  it("prints every expression canonically", () => {
    expect(explanation("columns = [ close*2 ]\n((close>1))AND2>1".replace("AND", " and "))).toBe(
      "Matches when close > 1 and 2 > 1. Returns close * 2.",
    );
  });
});
