/**
 * `compile(query).run(universe)` as decisions §1 "Evaluation" and §4 describe it: column keys,
 * ordering, limits, nulls, which instruments are left out, odd data, malformed data, and the
 * array types bars may come in.
 */
import { describe, expect, it } from "vitest";
import { compile, syntheticUniverse, XqlDataError, type Bars, type Instrument } from "../../src/index.js";
import { asPlainArrays, DAY, emptyBars, HOUR, MONDAY, symbolName, tickWalk, type ArrayBars } from "../kit/index.js";

const header = 'market = "CRYPTO"\ntimeframe = h1\n';
const run = (body: string, universe: Iterable<Instrument>) => compile(header + body).run(universe).results;
const symbols = (body: string, universe: Iterable<Instrument>) => run(body, universe).map((r) => r.symbol);

/** One h1 instrument whose latest bars have the given closes (open = high = low = close). */
function closes(symbol: string, values: number[], volume = 100): Instrument {
  const b = emptyBars(values.length);
  values.forEach((v, i) => {
    b.time[i] = MONDAY + i * HOUR;
    b.open[i] = b.high[i] = b.low[i] = b.close[i] = v;
    b.volume[i] = volume;
  });
  return { symbol, bars: { h1: b } };
}

describe("columns", () => {
  const u = [{ symbol: "A", bars: { h1: tickWalk({ seed: 1, count: 60, timeframe: "h1" }) } }];

  it("keys each column by its source text exactly as written, trimmed, in query order", () => {
    const [row] = run("columns = [close,   rsi( 14 ) ,close /  2,\n  hl2 ,d_x]\nlet d_x = high - low\ntrue", u);
    expect(Object.keys(row!.columns)).toEqual(["close", "rsi( 14 )", "close /  2", "hl2", "d_x"]);
    const b = u[0]!.bars.h1;
    expect(row!.columns["close"]).toBe(b.close[59]);
    expect(row!.columns["close /  2"]).toBe(b.close[59]! / 2);
    expect(row!.columns["hl2"]).toBe((b.high[59]! + b.low[59]!) / 2);
    expect(row!.columns["d_x"]).toBe(b.high[59]! - b.low[59]!);
  });

  it("differently spelled columns of the same expression are separate keys with equal values", () => {
    const [row] = run("columns = [rsi(14), rsi( 14 ), rsi(close, 14)]\ntrue", u);
    const values = Object.values(row!.columns);
    expect(Object.keys(row!.columns)).toEqual(["rsi(14)", "rsi( 14 )", "rsi(close, 14)"]);
    expect(new Set(values).size).toBe(1);
    expect(values[0]).toBeGreaterThan(0);
  });

  it("every result has columns: {} without a columns setting", () => {
    expect(run("true", u)).toEqual([{ symbol: "A", columns: {} }]);
  });

  it("a boolean column is 1 or 0", () => {
    const [row] = run("columns = [close > 0, close < 0]\ntrue", u);
    expect(row!.columns).toEqual({ "close > 0": 1, "close < 0": 0 });
  });

  it("a non-finite column value is null: division by zero, 0/0, an indicator over NaN bars", () => {
    const b = tickWalk({ seed: 2, count: 30, timeframe: "h1" });
    b.volume[29] = 0;
    b.close[20] = NaN;
    const [row] = run("columns = [close / 0, -close / 0, volume / volume, sma(close, 14), close]\ntrue", [{ symbol: "A", bars: { h1: b } }]);
    expect(row!.columns).toEqual({ "close / 0": null, "-close / 0": null, "volume / volume": null, "sma(close, 14)": null, close: b.close[29] });
    // And the JSON body says null.
    expect(JSON.stringify(row)).toContain('"close / 0":null');
  });
});

describe("sort and limit", () => {
  // Closes at the latest bar: ties at 3 and 5, and two NaN; given out of symbol order.
  const u = [
    closes("D", [1, 5]),
    closes("C", [1, NaN]),
    closes("A", [1, 5]),
    closes("F", [1, NaN]),
    closes("E", [1, 3]),
    closes("B", [1, 3]),
  ];

  it("without sort, results are in symbol order", () => {
    expect(symbols("true", u)).toEqual(["A", "B", "C", "D", "E", "F"]);
  });

  it("ascending: ties by symbol, NaN last (in symbol order)", () => {
    expect(symbols("sort = close asc\ntrue", u)).toEqual(["B", "E", "A", "D", "C", "F"]);
    expect(symbols("sort = close\ntrue", u)).toEqual(["B", "E", "A", "D", "C", "F"]);
  });

  it("descending: ties still by symbol ascending, NaN still last", () => {
    expect(symbols("sort = close desc\ntrue", u)).toEqual(["A", "D", "B", "E", "C", "F"]);
  });

  it("a NaN sort key shows as a null column", () => {
    const rows = run("columns = [close]\nsort = close desc\ntrue", u);
    expect(rows.map((r) => r.columns["close"])).toEqual([5, 5, 3, 3, null, null]);
  });

  it("±Infinity sort keys (division by zero) sort last with NaN, in symbol order, and show as null", () => {
    // volume / (close - 1): close 1 gives ±Infinity (sign of the volume), 0/0 gives NaN.
    const v = [
      closes("A", [1, 1], 10), // +Infinity
      closes("B", [1, 3], 10), // 5
      closes("C", [1, 1], -10), // -Infinity
      closes("D", [1, 2], 10), // 10
      closes("E", [1, 1], 0), // NaN
    ];
    for (const dir of ["asc", "desc"]) {
      const rows = run(`columns = [volume / (close - 1)]\nsort = volume / (close - 1) ${dir}\ntrue`, v);
      expect(rows.map((r) => r.symbol)).toEqual(dir === "asc" ? ["B", "D", "A", "C", "E"] : ["D", "B", "A", "C", "E"]);
      expect(rows.map((r) => r.columns["volume / (close - 1)"])).toEqual(dir === "asc" ? [5, 10, null, null, null] : [10, 5, null, null, null]);
    }
  });

  it("later sort keys break ties of earlier ones, each with its own direction", () => {
    const v = [
      closes("A", [1, 5], 10),
      closes("B", [1, 5], 30),
      closes("C", [1, 3], 20),
      closes("D", [1, 5], 20),
      closes("E", [1, 3], 20),
      closes("F", [1, 3], 5),
    ];
    expect(symbols("sort = close desc, volume asc\ntrue", v)).toEqual(["A", "D", "B", "F", "C", "E"]);
    expect(symbols("sort = close asc, volume desc\ntrue", v)).toEqual(["C", "E", "F", "B", "D", "A"]);
    // A NaN in the second key puts the row last among its first-key ties only.
    const w = [...v, closes("G", [1, 5], NaN)];
    expect(symbols("sort = close desc, volume desc\ntrue", w)).toEqual(["B", "D", "A", "G", "C", "E", "F"]);
  });

  it("sort keys may be any expression, including boolean ones (1 before 0 when descending)", () => {
    const v = [closes("A", [4, 5]), closes("B", [6, 5]), closes("C", [2, 3])];
    expect(symbols("sort = close > close[1] desc, close asc\ntrue", v)).toEqual(["C", "A", "B"]);
  });

  it("limit keeps the first n of the sorted results", () => {
    expect(symbols("sort = close desc\nlimit = 3\ntrue", u)).toEqual(["A", "D", "B"]);
    expect(symbols("limit = 2\ntrue", u)).toEqual(["A", "B"]);
    expect(symbols("limit = 10000\ntrue", u)).toEqual(["A", "B", "C", "D", "E", "F"]);
  });

  it("limit applies after the condition", () => {
    expect(symbols("sort = close asc\nlimit = 2\nclose > 4", u)).toEqual(["A", "D"]);
  });
});

describe("which instruments are left out", () => {
  const u = Array.from({ length: 25 }, (_, i) => ({ symbol: symbolName(i), bars: { h1: tickWalk({ seed: i, count: i, timeframe: "h1" }) } }));

  it("an instrument with fewer base bars than the minLookback does not match, even where the condition would be true", () => {
    // sma(20) needs 20 bars; `not (close > sma(20))` would be true on NaN.
    const expected = u.filter((x) => x.bars.h1.time.length >= 20 && !(x.bars.h1.close.at(-1)! > sma20(x.bars.h1))).map((x) => x.symbol);
    expect(expected.length).toBeGreaterThan(0);
    expect(symbols("not (close > sma(20))", u)).toEqual(expected);
    expect(symbols("columns = [rsi(14)]\ntrue", u)).toEqual(u.slice(15).map((x) => x.symbol));
    expect(symbols("columns = [close[24]]\ntrue", u)).toEqual([]);
    expect(symbols("sort = close[23] asc\ntrue", u)).toEqual([symbolName(24)]);
  });

  it("instruments with no bars, or lacking the base timeframe, are left out", () => {
    expect(symbols("true", u)).toEqual(u.slice(1).map((x) => x.symbol));
    expect(symbols("true", [{ symbol: "X", bars: {} }, { symbol: "Y", bars: { h4: tickWalk({ seed: 1, count: 50, timeframe: "h4" }) } }])).toEqual([]);
  });

  it("an instrument lacking a timeframe the query uses is left out", () => {
    const h1 = tickWalk({ seed: 3, count: 72, timeframe: "h1" });
    const d = tickWalk({ seed: 3, count: 10, timeframe: "d", start: MONDAY - 10 * DAY });
    expect(symbols("d::close > 0 or true", [{ symbol: "A", bars: { h1 } }, { symbol: "B", bars: { h1, d } }])).toEqual(["B"]);
  });

  it("a non-base source counts only the bars closed by the latest base bar's close", () => {
    // 30 h1 bars from Monday 00:00: the base closes Tuesday 06:00, so only Monday's d bar has closed.
    const h1 = tickWalk({ seed: 4, count: 30, timeframe: "h1" });
    const d = tickWalk({ seed: 4, count: 2, timeframe: "d" });
    const dEarlier = tickWalk({ seed: 5, count: 3, timeframe: "d", start: MONDAY - DAY });
    const u2 = [
      { symbol: "ONE_CLOSED", bars: { h1, d } },
      { symbol: "TWO_CLOSED", bars: { h1, d: dEarlier } },
    ];
    expect(symbols("d::close > 0", u2)).toEqual(["ONE_CLOSED", "TWO_CLOSED"]);
    expect(symbols("d::close[1] > 0", u2)).toEqual(["TWO_CLOSED"]);
    expect(symbols("d::sma(2) > 0", u2)).toEqual(["TWO_CLOSED"]);
    expect(symbols("d::sma(3) > 0", u2)).toEqual([]);
    expect(run("columns = [d::close, d::close[1]]\ntrue", u2)).toEqual([
      { symbol: "TWO_CLOSED", columns: { "d::close": dEarlier.close[1], "d::close[1]": dEarlier.close[0] } },
    ]);
  });
});

function sma20(b: ArrayBars): number {
  let s = 0;
  for (let i = b.close.length - 20; i < b.close.length; i++) s += b.close[i]!;
  return s / 20;
}

const ODD_QUERIES = [
  "columns = [rsi(14), atr(14), stdev(20), macd_hist(12, 26, 9), roc(5), change(3), bb_upper(20, 2), wma(10), ema(9), volume / avg(volume, 20), highest(10), lowest(10), hlc3]\nsort = rsi(14) desc, roc(5) asc\ntrue",
  "rsi(14) < 30 and volume > avg(volume, 20) * 2 or crossover(ema(close, 9), ema(close, 21)) or close >= highest(high, 52) and close > sma(200)",
  "columns = [macd(12, 26), macd_signal(12, 26, 9)]\ncrossover(macd(12, 26), macd_signal(12, 26, 9)) or crossunder(close, sma(20)) or not (roc(10) > 0)",
  "columns = [abs(change(1)) / atr(14)]\nabs(change(1)) > atr(14) * 0 or min(open, close) != max(open, close) or close == close[1]",
];

describe("odd data never throws", () => {
  const n = 260;
  const nanEverywhere = tickWalk({ seed: 7, count: n, timeframe: "h1" });
  for (const f of ["open", "high", "low", "close", "volume"] as const) nanEverywhere[f].fill(NaN);
  const nanHoles = tickWalk({ seed: 8, count: n, timeframe: "h1" });
  for (const i of [0, 5, 100, 200, 258]) nanHoles.close[i] = nanHoles.high[i] = NaN;
  const nanLast = tickWalk({ seed: 9, count: n, timeframe: "h1" });
  nanLast.close[n - 1] = NaN;
  const zeroVolume = tickWalk({ seed: 10, count: n, timeframe: "h1" });
  zeroVolume.volume.fill(0);
  const flat = tickWalk({ seed: 11, count: n, timeframe: "h1", flat: [0, n] });
  const zeroPrices = tickWalk({ seed: 12, count: n, timeframe: "h1", flat: [0, n], price: 0 });
  const infinite = tickWalk({ seed: 13, count: n, timeframe: "h1" });
  infinite.high[50] = Infinity;
  infinite.low[60] = -Infinity;
  infinite.volume[n - 1] = Infinity;
  const universe = Object.entries({ nanEverywhere, nanHoles, nanLast, zeroVolume, flat, zeroPrices, infinite }).map(([symbol, h1]) => ({
    symbol,
    bars: { h1 },
  }));

  for (const q of ODD_QUERIES) {
    it(`runs: ${q.split("\n").at(-1)}`, () => {
      const rows = run(q, universe);
      for (const r of rows) for (const v of Object.values(r.columns)) expect(v === null || Number.isFinite(v)).toBe(true);
      // Same instruments plus one ordinary one: the ordinary one is unaffected by its odd neighbours.
      const ok = { symbol: "ok", bars: { h1: tickWalk({ seed: 14, count: n, timeframe: "h1" }) } };
      const alone = run(q, [ok]);
      expect(run(q, [...universe, ok]).filter((r) => r.symbol === "ok")).toEqual(alone);
    });
  }

  it("flat prices: rsi is 100, σ is 0, roc is 0, atr is 0", () => {
    const [row] = run("columns = [rsi(14), stdev(20), roc(5), atr(14), bb_lower(20, 2) - close]\ntrue", [{ symbol: "F", bars: { h1: flat } }]);
    expect(row!.columns).toEqual({ "rsi(14)": 100, "stdev(20)": 0, "roc(5)": 0, "atr(14)": 0, "bb_lower(20, 2) - close": 0 });
  });

  it("NaN in the latest close: comparisons are false and `not` of them true", () => {
    expect(symbols("close > 0 or close <= 0", [{ symbol: "N", bars: { h1: nanLast } }])).toEqual([]);
    expect(symbols("not (close > 0)", [{ symbol: "N", bars: { h1: nanLast } }])).toEqual(["N"]);
  });
});

describe("malformed bars throw XqlDataError with a clear message", () => {
  const good = (): ArrayBars => tickWalk({ seed: 20, count: 30, timeframe: "h1" });
  const attempt = (bars: Partial<Record<"h1" | "d", Bars>>, body = "close > 0") => () => run(body, [{ symbol: "BAD", bars }]);

  it("times out of order", () => {
    const b = good();
    [b.time[10], b.time[11]] = [b.time[11]!, b.time[10]!];
    expect(attempt({ h1: b })).toThrow(XqlDataError);
    expect(attempt({ h1: b })).toThrow(/Instrument 'BAD', timeframe h1: bar times must be finite and strictly increasing, oldest first \(time\[11\]/);
  });

  it("duplicate times", () => {
    const b = good();
    b.time[20] = b.time[19]!;
    expect(attempt({ h1: b })).toThrow(/Instrument 'BAD', timeframe h1: bar times must be .*strictly increasing.*time\[20\]/);
  });

  it("a NaN time", () => {
    const b = good();
    b.time[3] = NaN;
    expect(attempt({ h1: b })).toThrow(XqlDataError);
  });

  it("a column with fewer values than times", () => {
    const b = good();
    const short = { ...b, close: b.close.subarray(0, 29) };
    expect(attempt({ h1: short })).toThrow(XqlDataError);
    expect(attempt({ h1: short })).toThrow("Instrument 'BAD', timeframe h1: column 'close' has 29 values for 30 bars");
  });

  it("a column the query reads is missing", () => {
    const { volume: _v, ...rest } = good();
    expect(attempt({ h1: rest as unknown as Bars }, "volume > 0")).toThrow("Instrument 'BAD', timeframe h1: column 'volume' has no values for 30 bars");
  });

  it("malformed bars of another source the query reads", () => {
    const d = tickWalk({ seed: 21, count: 5, timeframe: "d", start: MONDAY - 5 * DAY });
    d.time[4] = d.time[0]!;
    expect(attempt({ h1: good(), d }, "d::close > 0")).toThrow(/Instrument 'BAD', timeframe d: bar times/);
  });

  it("the error is an Error and names the offending instrument among many", () => {
    const b = good();
    b.time[1] = b.time[0]! - 1;
    const u = [{ symbol: "OK1", bars: { h1: good() } }, { symbol: "BAD", bars: { h1: b } }];
    let caught: unknown;
    try {
      run("true", u);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).name).toBe("XqlDataError");
    expect((caught as Error).message).toContain("'BAD'");
  });
});

describe("bars as plain arrays", () => {
  const queries = [
    "columns = [close, rsi(14), hl2, ohlc4, hlc3, atr(14), volume]\nsort = rsi(14) desc\ntrue",
    "columns = [macd_hist(12, 26, 9), bb_lower(20, 2), close[3]]\ncrossover(ema(close, 9), ema(close, 21)) or close >= highest(high, 52) or rsi(14) < 40",
    "columns = [d::close, (d::close)[1], d::sma(3)]\ncrossover(close, d::sma(3)) or close > d::close",
  ];
  const typed = Array.from({ length: 12 }, (_, i) => {
    const h1 = tickWalk({ seed: 30 + i, count: 200, timeframe: "h1" });
    const d = tickWalk({ seed: 60 + i, count: 12, timeframe: "d", start: MONDAY - 4 * DAY });
    return { symbol: symbolName(i), bars: { h1, d } as Record<"h1" | "d", Bars> };
  });
  const plain = typed.map((x) => ({ symbol: x.symbol, bars: { h1: asPlainArrays(x.bars.h1), d: asPlainArrays(x.bars.d) } }));
  // Mixed: within one instrument some columns typed and some plain; sources differ per instrument.
  const mixed = typed.map((x, i) => ({
    symbol: x.symbol,
    bars: { h1: i % 2 ? { ...x.bars.h1, close: Array.from(x.bars.h1.close), time: Array.from(x.bars.h1.time) } : x.bars.h1, d: i % 3 ? asPlainArrays(x.bars.d) : x.bars.d },
  }));

  for (const q of queries) {
    it(`number[] and Float64Array give identical results: ${q.split("\n").at(-1)}`, () => {
      const c = compile(header + q);
      const expected = c.run(typed).results;
      expect(expected.length).toBeGreaterThan(0);
      expect(c.run(plain).results).toEqual(expected);
      expect(c.run(mixed).results).toEqual(expected);
      expect(c.run(typed).results).toEqual(expected);
    });
  }
});

describe("compiled queries", () => {
  const make = (n: number, count: number) =>
    Array.from({ length: n }, (_, i) => ({ symbol: symbolName(i), bars: { h1: tickWalk({ seed: 100 + i * count, count, timeframe: "h1" }) } }));

  it("run many times over different universes: no state leaks between runs", () => {
    const c = compile(header + "columns = [rsi(14), sma(20), close[2]]\nsort = rsi(14) asc\nrsi(14) < 60 or crossover(close, sma(20))");
    const long = make(10, 300);
    const short = make(7, 40);
    const first = c.run(long).results;
    const other = c.run(short).results;
    expect(c.run(long).results).toEqual(first);
    expect(c.run(short).results).toEqual(other);
    expect(compile(header + "columns = [rsi(14), sma(20), close[2]]\nsort = rsi(14) asc\nrsi(14) < 60 or crossover(close, sma(20))").run(short).results).toEqual(other);
  });

  it("takes any iterable, and a run started from inside another run's iteration gets its own state", () => {
    const c = compile(header + "columns = [rsi(14)]\nsort = rsi(14) desc\ntrue");
    const a = make(5, 100);
    const b = make(6, 60);
    const expectedB = c.run(b).results;
    const expectedA = c.run(a).results;
    let inner: unknown;
    function* instruments() {
      for (const x of a) {
        inner = c.run(new Set(b)).results;
        yield x;
      }
    }
    expect(c.run(instruments()).results).toEqual(expectedA);
    expect(inner).toEqual(expectedB);
  });

  it("results are plain data: rows and columns are fresh objects per run", () => {
    const c = compile(header + "columns = [close]\ntrue");
    const u = make(3, 20);
    const r1 = c.run(u).results;
    r1[0]!.columns["close"] = -1;
    expect(c.run(u).results[0]!.columns["close"]).toBe(u[0]!.bars.h1.close[19]);
  });
});

describe("the public synthetic universe", () => {
  it("runs the example screen over syntheticUniverse and returns sorted, limited rows with finite columns", () => {
    const u = syntheticUniverse({ market: "CRYPTO", symbols: 200, timeframes: ["h1"], bars: 300, seed: 1 });
    const rows = run(
      "columns = [close, rsi(14), volume]\nsort = rsi(14) asc\nlimit = 20\nrsi(14) < 50 and volume > avg(volume, 20) * 0.5 or crossover(ema(close, 9), ema(close, 21)) or close >= highest(high, 52) and close > sma(200)",
      u,
    );
    expect(rows.length).toBe(20);
    const r = rows.map((x) => x.columns["rsi(14)"]!);
    expect([...r].sort((a, b) => a - b)).toEqual(r);
    for (const row of rows) expect(Object.values(row.columns).every((v) => Number.isFinite(v))).toBe(true);
  });
});
