/**
 * Flat windows are exact (decisions §9): constant series and flat stretches after movement give
 * means equal to the price and deviations of exactly 0 (the documented table of every function on
 * flat bars is checked in flat.test.ts), and bars repeating one true range keep atr at it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, type Instrument } from "../../src/index.js";

const H = 3_600_000;

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

/** The call's value at the last bar of `instrument`, and the lookback its plan needs. */
function valueAt(call: string, instrument: Instrument): { value: number | null | undefined; lookback: number } {
  const q = compile(`market = "FOREX"\ntimeframe = h1\ncolumns = [${call}]\ntrue`, { lookbackCeiling: 100_000 });
  return { value: q.run([instrument]).results[0]?.columns[call], lookback: q.plan.sources[0]!.minLookback };
}

const move = fc.double({ min: -0.02, max: 0.02, noNaN: true });
const history = fc.array(move, { maxLength: 40 });
// Generated, not filtered: fast-check's default size rarely reaches 30 elements, and a filter retries until it does.
const longHistory = fc.array(move, { minLength: 30, maxLength: 40 });

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
