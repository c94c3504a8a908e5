/**
 * Flat windows (docs/functions-reference.md, "Flat windows"): the table there says what every
 * function that divides by movement gives on flat bars; this test reads it and checks it
 * through compile(), on flat bars at prices chosen because their means and typical prices
 * round (0.1, 3.3, 7e-9, ...) and at random ones, after random history where the table says
 * any window, and from the first bar for every row. Every number function the table does not
 * name must be defined on flat bars, and the same at every bar of them.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, type Instrument } from "../../src/index.js";
import { FUNCTIONS, type FunctionSpec } from "../../src/functions/registry.js";

const doc = readFileSync(new URL("../../docs/functions-reference.md", import.meta.url), "utf8");

interface Row {
  readonly name: string;
  /** null: undefined on flat bars. */
  readonly value: number | null;
  /** "any": after any history; "start": flat from the first bar. */
  readonly scope: "any" | "start";
}

/** The rows of the "Flat windows" table, one per function named. */
function flatTable(): Row[] {
  const section = /## Flat windows\n([\s\S]*?)\n## /.exec(doc)?.[1] ?? "";
  const table = /\| function \| on flat bars \| which window \|\n\|[-|]+\|\n((?:\|.*\|\n)+)/.exec(section)?.[1] ?? "";
  return table
    .trim()
    .split("\n")
    .flatMap((line) => {
      const [names, value, scope] = line.split("|").slice(1, 4).map((cell) => cell.trim());
      return [...names!.matchAll(/`(\w+)`/g)].map((m) => ({
        name: m[1]!,
        value: value === "undefined" ? null : Number(value),
        scope: scope!.startsWith("any") ? ("any" as const) : ("start" as const),
      }));
    });
}

const ROWS = flatTable();
const H = 3_600_000;

/** Prices whose flat windows round: a mean of twenty of them, or (x + x + x)/3, is not x. */
const ROUNDING_PRICES = [0.1, 3.3, 7e-9, 101731.68, 0.7, 1.2345, 0.3, 2e-12];

/**
 * `history` bars of a random walk around `price`, then `flat` bars with open = high = low =
 * close = price, then `after` bars of a walk from the price again.
 */
function bars(history: readonly number[], flat: number, price: number, after: readonly number[] = []): Instrument {
  const n = history.length + flat + after.length;
  const col = (): Float64Array => new Float64Array(n);
  const [open, high, low, close, volume] = [col(), col(), col(), col(), col()];
  let p = price * 1.2;
  history.forEach((move, i) => {
    open[i] = p;
    p *= 1 + move;
    close[i] = p;
    high[i] = Math.max(open[i]!, p) * 1.002;
    low[i] = Math.min(open[i]!, p) * 0.998;
    volume[i] = 500 + 1000 * Math.abs(move) * 50;
  });
  for (let i = history.length; i < history.length + flat; i++) {
    open[i] = high[i] = low[i] = close[i] = price;
    volume[i] = 1000;
  }
  p = price;
  after.forEach((move, k) => {
    const i = history.length + flat + k;
    open[i] = p;
    p *= 1 + move;
    close[i] = p;
    high[i] = Math.max(open[i]!, p) * 1.002;
    low[i] = Math.min(open[i]!, p) * 0.998;
    volume[i] = 500 + 1000 * Math.abs(move) * 50;
  });
  const time = Float64Array.from({ length: n }, (_, i) => 1_767_225_600_000 + i * H);
  return { symbol: "X", bars: { h1: { time, open, high, low, close, volume } } };
}

/** A call of `fn` with the given lengths and numbers; series are close (and open), conditions true on flat bars. */
function callOf(fn: FunctionSpec, lengths: readonly number[], numbers: readonly number[]): string {
  if (fn.params.length === 0) return fn.name;
  let l = 0;
  let k = 0;
  let series = 0;
  const args = fn.params.map((p) => {
    switch (p.kind) {
      case "series":
        return series++ === 0 ? "close" : "open";
      case "condition":
        return "close >= open";
      case "length":
        return String(lengths[l++ % lengths.length]);
      case "number":
        return String(numbers[k++ % numbers.length]);
    }
  });
  return `${fn.name}(${args.join(", ")})`;
}

/** The call's value at the last bar of `instrument`, and the lookback its plan needs. */
function valueAt(call: string, instrument: Instrument): { value: number | null | undefined; lookback: number } {
  const q = compile(`market = "FOREX"\ntimeframe = h1\ncolumns = [${call}]\ntrue`, { lookbackCeiling: 100_000 });
  return { value: q.run([instrument]).results[0]?.columns[call], lookback: q.plan.sources[0]!.minLookback };
}

const price = fc.oneof(fc.constantFrom(...ROUNDING_PRICES), fc.double({ min: 1e-9, max: 1e6, noNaN: true, noDefaultInfinity: true }));
const lengths = fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 4, maxLength: 4 });
const numbers = fc.array(fc.constantFrom(0.5, 1, 1.5, 2, 2.5, 3), { minLength: 2, maxLength: 2 });
const move = fc.double({ min: -0.02, max: 0.02, noNaN: true });
const history = fc.array(move, { maxLength: 40 });
// Generated, not filtered: fast-check's default size rarely reaches 30 elements, and a filter retries until it does.
const longHistory = fc.array(move, { minLength: 30, maxLength: 40 });

describe("flat windows", () => {
  it("docs/functions-reference.md's table names real functions, the ones the issue found among them", () => {
    for (const row of ROWS) expect(FUNCTIONS.has(row.name), row.name).toBe(true);
    const names = ROWS.map((r) => r.name);
    for (const name of ["cci", "stochrsi_k", "stochrsi_d", "dx", "plus_di", "minus_di", "adx", "willr", "zscore", "bop"]) {
      expect(names).toContain(name);
    }
  });

  it.each(ROWS.map((row) => [row.name, row] as const))("%s gives the documented value on flat bars", (_name, row) => {
    const fn = FUNCTIONS.get(row.name)!;
    fc.assert(
      fc.property(price, lengths, numbers, row.scope === "any" ? history : fc.constant([]), fc.nat(70), (x, ls, ks, moves, extra) => {
        const call = callOf(fn, ls, ks);
        const { lookback } = valueAt(call, bars([], 1, x));
        const { value } = valueAt(call, bars(moves, lookback + extra, x));
        expect(value, `${call} after ${moves.length} bars of history, then ${lookback + extra} flat bars at ${x}`).toBe(row.value);
      }),
      { numRuns: 40 },
    );
  });

  it("every other number function is defined on flat bars, and the same at each of them", () => {
    const documented = new Set(ROWS.map((r) => r.name));
    const others = [...FUNCTIONS.values()].filter((fn) => fn.result === "number" && !documented.has(fn.name));
    expect(others.length).toBeGreaterThan(40);
    for (const fn of others) {
      const call = callOf(fn, [5, 3, 4, 2], [2, 0.5]);
      for (const x of ROUNDING_PRICES) {
        const { lookback } = valueAt(call, bars([], 1, x));
        const seen = new Set<number | null | undefined>();
        // From the lookback on, across the evaluator's 64-bar blocks.
        for (let flat = lookback; flat < lookback + 70; flat += 3) seen.add(valueAt(call, bars([], flat, x)).value);
        expect([...seen], `${call} on flat bars at ${x}`).toHaveLength(1);
        const [value] = seen;
        expect(typeof value, `${call} on flat bars at ${x} is ${value}`).toBe("number");
      }
    }
  });
});

describe("a flat stretch after movement", () => {
  it("holds rsi, plus_di, minus_di and dx exactly (a flat bar scales their averages alike), however long", () => {
    fc.assert(
      fc.property(price, fc.integer({ min: 2, max: 20 }), longHistory, (x, n, moves) => {
        for (const call of [`rsi(${n})`, `plus_di(${n})`, `minus_di(${n})`, `dx(${n})`]) {
          const atMove = valueAt(call, bars(moves, 1, x)).value;
          // Long enough for RSI(2)'s averages to underflow (each flat bar halves them).
          for (const flat of [2, 45, 1_200]) expect(valueAt(call, bars(moves, flat, x)).value, `${call}, ${flat} flat bars`).toBe(atMove);
        }
      }),
      { numRuns: 25 },
    );
  });

  it("leaves the Stoch RSI undefined once k − 1 closes have not changed", () => {
    const moves = Array.from({ length: 60 }, (_, i) => 0.01 * Math.sin(i * 1.7));
    for (const x of ROUNDING_PRICES) {
      for (const [n, k] of [[14, 14], [5, 3], [2, 2]] as const) {
        const call = `stochrsi_k(${n}, ${k}, 1)`;
        expect(valueAt(call, bars(moves, k, x)).value, `${call} at ${x}`).toBeNull();
        expect(valueAt(call, bars(moves, 1, x)).value, `${call} at ${x}, one flat bar`).not.toBeNull();
      }
    }
  });
});

/**
 * Flat windows are exact (decisions §9, docs/functions-reference.md "Flat windows"): a window of
 * equal values has that value as its mean, exactly, and a deviation of exactly 0, so no strict
 * comparison against the price is decided by rounding. The prices are ones whose sums round
 * (twenty 54321.07 average to 54321.06999999999, twenty 3.3 to 3.2999999999999985), a tiny one,
 * and prices of a JPY pair.
 */
describe("flat windows are exact", () => {
  const PRICES = [54321.07, 0.1, 3.3, 1e-5, 157.123, 149.875, 0.7, 101731.68, 0.3, 1.1];
  /** Calls whose value on a window of equal prices is the price. */
  const MEANS = [
    "sma(close, 20)",
    "avg(close, 20)",
    "sma(close, 7)",
    "wma(close, 20)",
    "trima(close, 20)",
    "trima(close, 21)",
    "vwma(close, 20)",
    "hma(close, 20)",
    "linreg(close, 20)",
    "bb_upper(20, 2)",
    "bb_lower(20, 2)",
  ];
  /** Calls whose value on a window of equal prices is exactly 0. */
  const DEVIATIONS = ["stdev(close, 20)", "linreg_slope(close, 20)", "bb_width(20, 2)"];
  /** On a constant series the SMA-seeded recursions are the price too, or exactly 0. */
  const SEEDED_MEANS = ["ema(close, 200)", "ema(close, 20)", "dema(close, 20)", "tema(close, 20)", "kc_upper(20, 2)", "kc_lower(20, 2)", "kama(close, 10)"];
  const SEEDED_ZEROS = ["macd(12, 26)", "macd_signal(12, 26, 9)", "macd_hist(12, 26, 9)", "ppo(12, 26)", "trix(close, 15)", "atr(14)", "natr(14)", "adx(14)"];
  /** Strict comparisons against the price that must not match on a constant series. */
  const NEVER = [
    "close > sma(close, 20)",
    "close < sma(close, 20)",
    "close > bb_upper(20, 2)",
    "close < bb_lower(20, 2)",
    "close < ema(close, 200)",
    "close > ema(close, 200)",
    "macd(12, 26) < 0",
    "macd(12, 26) > 0",
    "close > wma(close, 20)",
    "close < wma(close, 20)",
    "close > kc_upper(20, 2)",
    "close < kc_lower(20, 2)",
    "stdev(close, 20) > 0",
  ];

  function matches(condition: string, instrument: Instrument): boolean {
    const q = compile(`market = "FOREX"\ntimeframe = h1\n${condition}`, { lookbackCeiling: 100_000 });
    return q.run([instrument]).results.length === 1;
  }

  it.each(PRICES)("on a constant series at %s, means are the price and deviations exactly 0", (x) => {
    const constant = bars([], 900, x);
    for (const call of [...MEANS, ...SEEDED_MEANS]) expect(Object.is(valueAt(call, constant).value, x), `${call} at ${x}: ${valueAt(call, constant).value}`).toBe(true);
    for (const call of [...DEVIATIONS, ...SEEDED_ZEROS]) expect(Object.is(valueAt(call, constant).value, 0), `${call} at ${x}: ${valueAt(call, constant).value}`).toBe(true);
    for (const condition of NEVER) expect(matches(condition, constant), `${condition} at ${x}`).toBe(false);
    // Pearson's r divides by both deviations: a flat window has none (docs: undefined).
    expect(valueAt("correl(close, open, 20)", constant).value).toBeNull();
  });

  it("keeps a repeated true range exactly: atr is high − low where every bar has the same range", () => {
    // Ranges whose sum of 14 or 20 rounds (fourteen 0.3 − 0.2 average an ulp away), and others.
    for (const [high, low] of [[0.3, 0.2], [0.4, 0.3], [3.3, 3.2], [157.2, 157.1], [54321.17, 54321.07]] as const) {
      const n = 300;
      const col = (v: number): Float64Array => new Float64Array(n).fill(v);
      const close = low + (high - low) / 2;
      const h1 = { time: Float64Array.from({ length: n }, (_, i) => 1_767_225_600_000 + i * H), open: col(close), high: col(high), low: col(low), close: col(close), volume: col(1000) };
      const instrument: Instrument = { symbol: "X", bars: { h1 } };
      for (const call of ["atr(14)", "atr(20)"]) {
        expect(Object.is(valueAt(call, instrument).value, high - low), `${call} of ${high} − ${low}`).toBe(true);
        expect(matches(`${call} != high - low`, instrument), `${call} of ${high} − ${low}`).toBe(false);
      }
    }
  });

  it("a flat stretch after movement: once a window lies inside it, means are the price and deviations 0", () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRICES), longHistory, fc.nat(80), history, (x, moves, extra, later) => {
        // hma(close, 20) needs 20 + ⌊√20⌋ − 1 = 23 equal values.
        const flat = 23 + extra;
        const inside = bars(moves, flat, x, later);
        // The value at the last flat bar, `later.length` bars before the end, through an offset.
        const at = (call: string): string => (later.length === 0 ? call : `(${call})[${later.length}]`);
        for (const call of MEANS) expect(Object.is(valueAt(at(call), inside).value, x), `${call} after ${flat} flat bars at ${x}`).toBe(true);
        for (const call of DEVIATIONS) expect(Object.is(valueAt(at(call), inside).value, 0), `${call} after ${flat} flat bars at ${x}`).toBe(true);
        const k = later.length;
        for (const condition of [`close[${k}] > ${at("sma(close, 20)")}`, `close[${k}] < ${at("sma(close, 20)")}`, `close[${k}] > ${at("bb_upper(20, 2)")}`, `close[${k}] < ${at("bb_lower(20, 2)")}`]) {
          expect(matches(condition, inside), condition).toBe(false);
        }
      }),
      { numRuns: 30 },
    );
  });
});
