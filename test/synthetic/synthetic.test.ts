import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SYNTHETIC_END, syntheticUniverse, type SyntheticOptions } from "../../src/synthetic/synthetic.js";
import { CRYPTO_SYMBOLS, FOREX_SYMBOLS } from "../../src/synthetic/symbols.js";
import { TIMEFRAMES, TIMEFRAME_MS, type Bars, type Instrument, type Timeframe } from "../../src/types.js";
import { forexKey, forexTrades } from "../sessions/independent.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ALL: Timeframe[] = [...TIMEFRAMES];

/** 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday). */
function weekday(t: number): number {
  return (((Math.floor(t / DAY) + 3) % 7) + 7) % 7;
}

function bars(instrument: Instrument, tf: Timeframe): Bars {
  const b = instrument.bars[tf];
  if (!b) throw new Error(`${instrument.symbol} has no ${tf} bars`);
  return b;
}

/** Every broken invariant of one series, as readable strings (empty when all hold). */
function invariantViolations(b: Bars, tf: Timeframe, market: string, end: number, count: number): string[] {
  const bad: string[] = [];
  const dur = TIMEFRAME_MS[tf];
  const n = b.time.length;
  if (n !== count) bad.push(`${tf}: ${n} bars, expected ${count}`);
  for (const key of ["open", "high", "low", "close", "volume"] as const) {
    if (b[key].length !== n) bad.push(`${tf}: ${key} has ${b[key].length} values`);
  }
  for (let i = 0; i < n; i++) {
    const [t, o, h, l, c, v] = [b.time[i]!, b.open[i]!, b.high[i]!, b.low[i]!, b.close[i]!, b.volume[i]!];
    if (![o, h, l, c].every((x) => Number.isFinite(x) && x > 0)) bad.push(`${tf}@${t}: non-positive or non-finite price`);
    if (h < Math.max(o, c) || l > Math.min(o, c) || l > h) bad.push(`${tf}@${t}: OHLC out of order ${o} ${h} ${l} ${c}`);
    if (!Number.isSafeInteger(v) || v < 0) bad.push(`${tf}@${t}: volume ${v}`);
    const session = market === "FOREX" && (tf === "h4" || tf === "d" || tf === "w");
    const aligned = session ? forexKey(t, tf) === t : tf === "w" ? weekday(t) === 0 && t % DAY === 0 : t % dur === 0;
    if (!aligned) bad.push(`${tf}@${t}: not on a ${tf} boundary`);
    if (market === "FOREX" && !forexTrades(t)) bad.push(`${tf}@${t}: FOREX bar between Friday 17:00 and Sunday 17:00 New York`);
    if (i > 0) {
      const step = t - b.time[i - 1]!;
      // FOREX skips its weekend: a longer step only from the last bar before Friday 17:00 New York to Sunday 17:00.
      const weekendJump = market === "FOREX" && tf !== "w" && !forexTrades(b.time[i - 1]! + dur) && forexTrades(t) && !forexTrades(t - 1);
      const week = market === "FOREX" && tf === "w" && Math.abs(step - dur) <= HOUR;
      if (step !== dur && !weekendJump && !week) bad.push(`${tf}@${t}: step ${step}`);
    }
  }
  if (n > 0) {
    const last = b.time[n - 1]!;
    if (!(last < end)) bad.push(`${tf}: last bar ${last} opens at or after end ${end}`);
    if (market === "CRYPTO" || tf === "w") {
      if (!(last + dur > end - 1)) bad.push(`${tf}: last bar ${last} does not contain end - 1`);
    } else if (last + dur < end && forexTrades(end - 1)) {
      bad.push(`${tf}: last bar ${last} ends before end ${end} on a trading day`);
    }
  }
  return bad;
}

/**
 * Every coarse bar fully covered by fine bars must be exactly their aggregate (the last bar
 * counts as covered up to `end`). A coarse bar that the fine series starts inside must at
 * least contain them: the same close, highs and lows inside its range, no more volume.
 * Returns the mismatches and how many coarse bars were checked exactly.
 */
function aggregation(coarse: Bars, fine: Bars, coarseTf: Timeframe, fineTf: Timeframe, market: string): { bad: string[]; exact: number } {
  const bad: string[] = [];
  const dur = TIMEFRAME_MS[coarseTf];
  // FOREX h4, d and w gather the fine bars whose session key is theirs (weeks are 7 days ± 1 hour in UTC).
  const session = market === "FOREX" && (coarseTf === "h4" || coarseTf === "d" || coarseTf === "w");
  const inside = (fineTime: number, t: number): boolean => (session ? forexKey(fineTime, coarseTf) === t : fineTime < t + dur);
  let exact = 0;
  const firstFine = fine.time[0];
  if (firstFine === undefined) return { bad, exact };
  let j = 0;
  for (let i = 0; i < coarse.time.length; i++) {
    const t = coarse.time[i]!;
    if (t + dur <= firstFine) continue;
    while (j < fine.time.length && fine.time[j]! < t) j++;
    let k = j;
    let o = NaN;
    let h = -Infinity;
    let l = Infinity;
    let c = NaN;
    let v = 0;
    for (; k < fine.time.length && inside(fine.time[k]!, t); k++) {
      if (k === j) o = fine.open[k]!;
      h = Math.max(h, fine.high[k]!);
      l = Math.min(l, fine.low[k]!);
      c = fine.close[k]!;
      v += fine.volume[k]!;
    }
    if (k === j) {
      bad.push(`${coarseTf}@${t} has no ${fineTf} bars`);
      continue;
    }
    const want = [coarse.open[i]!, coarse.high[i]!, coarse.low[i]!, coarse.close[i]!, coarse.volume[i]!];
    if (t >= firstFine) {
      exact++;
      const got = [o, h, l, c, v];
      if (want.some((x, m) => x !== got[m])) bad.push(`${coarseTf}@${t} = ${want.join(",")} but ${fineTf} gives ${got.join(",")}`);
    } else if (want[3] !== c || h > want[1] || l < want[2] || v > want[4]) {
      bad.push(`${coarseTf}@${t} = ${want.join(",")} does not contain its ${fineTf} bars (${h},${l},${c},${v})`);
    }
  }
  return { bad, exact };
}

function allPairs(instrument: Instrument, tfs: readonly Timeframe[], market = "CRYPTO"): { bad: string[]; exact: number } {
  const sorted = [...tfs].sort((a, b) => TIMEFRAME_MS[a] - TIMEFRAME_MS[b]);
  const bad: string[] = [];
  let exact = 0;
  for (let f = 0; f < sorted.length; f++) {
    for (let c = f + 1; c < sorted.length; c++) {
      const fineTf = sorted[f]!;
      const coarseTf = sorted[c]!;
      const r = aggregation(bars(instrument, coarseTf), bars(instrument, fineTf), coarseTf, fineTf, market);
      bad.push(...r.bad);
      exact += r.exact;
    }
  }
  return { bad, exact };
}

function sameBars(a: Bars, b: Bars): boolean {
  return (["time", "open", "high", "low", "close", "volume"] as const).every(
    (k) => a[k].length === b[k].length && Array.from(a[k]).every((x, i) => x === b[k][i]),
  );
}

// --- Small reference indicators (the library's evaluator is tested elsewhere) -------------------

function sma(xs: ArrayLike<number>, n: number, at: number): number {
  let s = 0;
  for (let i = at - n + 1; i <= at; i++) s += xs[i]!;
  return s / n;
}

/** EMA seeded with the SMA of the first n values, as decisions §1 defines it. */
function emaSeries(xs: ArrayLike<number>, n: number): number[] {
  const alpha = 2 / (n + 1);
  const out: number[] = new Array(xs.length).fill(NaN);
  let e = sma(xs, n, n - 1);
  out[n - 1] = e;
  for (let i = n; i < xs.length; i++) out[i] = e = alpha * xs[i]! + (1 - alpha) * e;
  return out;
}

/** Wilder RSI at the last bar. */
function rsi(xs: ArrayLike<number>, n: number): number {
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= n; i++) {
    const d = xs[i]! - xs[i - 1]!;
    gain += Math.max(d, 0);
    loss += Math.max(-d, 0);
  }
  gain /= n;
  loss /= n;
  for (let i = n + 1; i < xs.length; i++) {
    const d = xs[i]! - xs[i - 1]!;
    gain = (gain * (n - 1) + Math.max(d, 0)) / n;
    loss = (loss * (n - 1) + Math.max(-d, 0)) / n;
  }
  return loss === 0 ? 100 : 100 - 100 / (1 + gain / loss);
}

const SCREENS: Record<string, (b: Bars) => boolean> = {
  "rsi(14) < 30": (b) => rsi(b.close, 14) < 30,
  "volume > avg(volume, 20) * 2": (b) => {
    const last = b.volume.length - 1;
    return b.volume[last]! > sma(b.volume, 20, last) * 2;
  },
  "crossover(ema(close, 9), ema(close, 21))": (b) => {
    const fast = emaSeries(b.close, 9);
    const slow = emaSeries(b.close, 21);
    const last = b.close.length - 1;
    return fast[last]! > slow[last]! && fast[last - 1]! <= slow[last - 1]!;
  },
  "close >= highest(high, 52)": (b) => {
    const last = b.close.length - 1;
    let h = -Infinity;
    for (let i = last - 51; i <= last; i++) h = Math.max(h, b.high[i]!);
    return b.close[last]! >= h;
  },
};

// -------------------------------------------------------------------------------------------

describe("symbol lists", () => {
  it("has at least 200 unique CRYPTO symbols with realistic names", () => {
    expect(CRYPTO_SYMBOLS.length).toBeGreaterThanOrEqual(200);
    expect(new Set(CRYPTO_SYMBOLS).size).toBe(CRYPTO_SYMBOLS.length);
    for (const s of CRYPTO_SYMBOLS) expect(s).toMatch(/^[A-Z0-9]+(USDT|USDC|BTC)$/);
    expect(CRYPTO_SYMBOLS.slice(0, 4)).toEqual(["BTCUSDT", "ETHUSDT", "BNBUSDT", "SOLUSDT"]);
  });

  it("has the FOREX majors and crosses", () => {
    expect(FOREX_SYMBOLS.length).toBeGreaterThanOrEqual(28);
    expect(new Set(FOREX_SYMBOLS).size).toBe(FOREX_SYMBOLS.length);
    for (const s of ["EURUSD", "GBPUSD", "USDJPY", "USDCHF", "AUDUSD", "USDCAD", "NZDUSD", "EURGBP", "EURJPY", "GBPJPY"]) {
      expect(FOREX_SYMBOLS).toContain(s);
    }
    for (const s of FOREX_SYMBOLS) expect(s).toMatch(/^[A-Z]{6}$/);
  });

  it("returns instruments in list order and makes up unique names past the list", () => {
    const forex = syntheticUniverse({ market: "FOREX", symbols: FOREX_SYMBOLS.length + 5, timeframes: ["d"], bars: 5 });
    expect(forex.map((i) => i.symbol).slice(0, FOREX_SYMBOLS.length)).toEqual(FOREX_SYMBOLS);
    expect(new Set(forex.map((i) => i.symbol)).size).toBe(forex.length);
    const crypto = syntheticUniverse({ market: "CRYPTO", symbols: CRYPTO_SYMBOLS.length + 40, timeframes: ["d"], bars: 5 });
    expect(crypto).toHaveLength(CRYPTO_SYMBOLS.length + 40);
    expect(new Set(crypto.map((i) => i.symbol)).size).toBe(crypto.length);
    for (const i of crypto) expect(invariantViolations(bars(i, "d"), "d", "CRYPTO", DEFAULT_SYNTHETIC_END, 5)).toEqual([]);
    expect(syntheticUniverse({ market: "CRYPTO", symbols: 3, timeframes: ["h1"], bars: 5 }).map((i) => i.symbol)).toEqual(
      CRYPTO_SYMBOLS.slice(0, 3),
    );
  });

  it("prices at realistic levels", () => {
    const u = syntheticUniverse({ market: "FOREX", symbols: 28, timeframes: ["d"], bars: 1 });
    for (const i of u) {
      const close = bars(i, "d").close[0]!;
      const [lo, hi] = i.symbol.endsWith("JPY") ? [80, 250] : [0.4, 2.5];
      expect(close, i.symbol).toBeGreaterThan(lo);
      expect(close, i.symbol).toBeLessThan(hi);
    }
    const c = syntheticUniverse({ market: "CRYPTO", symbols: CRYPTO_SYMBOLS.length, timeframes: ["d"], bars: 1 });
    const closes = new Map(c.map((i) => [i.symbol, bars(i, "d").close[0]!]));
    expect(closes.get("BTCUSDT")).toBeGreaterThan(20_000);
    expect(closes.get("BTCUSDT")).toBeLessThan(400_000);
    expect(Math.min(...closes.values())).toBeLessThan(0.001);
    const spread = Math.max(...closes.values()) / Math.min(...closes.values());
    expect(spread).toBeGreaterThan(1e6);
  });
});

describe("options", () => {
  it("matches market names case-insensitively", () => {
    const a = syntheticUniverse({ market: "forex", symbols: 3, timeframes: ["h1"], bars: 20 });
    const b = syntheticUniverse({ market: "FOREX", symbols: 3, timeframes: ["h1"], bars: 20 });
    const c = syntheticUniverse({ market: "Crypto", symbols: 3, timeframes: ["h1"], bars: 20 });
    expect(a.map((i) => i.symbol)).toEqual(b.map((i) => i.symbol));
    a.forEach((inst, k) => expect(sameBars(bars(inst, "h1"), bars(b[k]!, "h1"))).toBe(true));
    expect(c[0]!.symbol).toBe("BTCUSDT");
  });

  it("rejects an unknown market with a clear message", () => {
    expect(() => syntheticUniverse({ market: "STOCKS", symbols: 1, timeframes: ["d"], bars: 1 })).toThrow(
      /unknown market "STOCKS".*FOREX, CRYPTO/,
    );
    expect(() => syntheticUniverse({ market: "constructor", symbols: 1, timeframes: ["d"], bars: 1 })).toThrow(/unknown market/);
  });

  it("rejects bad counts, timeframes, seeds and ends", () => {
    const base: SyntheticOptions = { market: "CRYPTO", symbols: 1, timeframes: ["d"], bars: 1 };
    expect(() => syntheticUniverse({ ...base, symbols: -1 })).toThrow(RangeError);
    expect(() => syntheticUniverse({ ...base, bars: 1.5 })).toThrow(/bars must be an integer/);
    expect(() => syntheticUniverse({ ...base, timeframes: ["h2" as Timeframe] })).toThrow(/unknown timeframe "h2"/);
    expect(() => syntheticUniverse({ ...base, seed: Number.NaN })).toThrow(/seed/);
    expect(() => syntheticUniverse({ ...base, end: Number.POSITIVE_INFINITY })).toThrow(/end/);
  });

  it("handles zero symbols, zero bars and no timeframes", () => {
    expect(syntheticUniverse({ market: "CRYPTO", symbols: 0, timeframes: ["d"], bars: 10 })).toEqual([]);
    const [none] = syntheticUniverse({ market: "CRYPTO", symbols: 1, timeframes: [], bars: 10 });
    expect(none!.bars).toEqual({});
    const [empty] = syntheticUniverse({ market: "FOREX", symbols: 1, timeframes: ["h1", "w"], bars: 0 });
    expect(bars(empty!, "h1").time).toHaveLength(0);
    expect(bars(empty!, "w").close).toHaveLength(0);
  });

  it("defaults end to Monday 2026-01-05 00:00 UTC and the seed to 1", () => {
    expect(DEFAULT_SYNTHETIC_END).toBe(Date.UTC(2026, 0, 5));
    const [a] = syntheticUniverse({ market: "CRYPTO", symbols: 1, timeframes: ["h1", "w"], bars: 10 });
    const [b] = syntheticUniverse({ market: "CRYPTO", symbols: 1, timeframes: ["h1", "w"], bars: 10, seed: 1, end: DEFAULT_SYNTHETIC_END });
    expect(sameBars(bars(a!, "h1"), bars(b!, "h1"))).toBe(true);
    expect(bars(a!, "h1").time[9]).toBe(DEFAULT_SYNTHETIC_END - HOUR);
    expect(bars(a!, "w").time[9]).toBe(DEFAULT_SYNTHETIC_END - 7 * DAY);
  });
});

describe("determinism", () => {
  const options: SyntheticOptions = { market: "CRYPTO", symbols: 5, timeframes: ALL, bars: 50, end: Date.UTC(2025, 5, 3, 13, 7, 42, 123) };

  it("gives identical arrays for the same seed", () => {
    const a = syntheticUniverse({ ...options, seed: 7 });
    const b = syntheticUniverse({ ...options, seed: 7 });
    a.forEach((inst, k) => {
      for (const tf of ALL) expect(sameBars(bars(inst, tf), bars(b[k]!, tf))).toBe(true);
    });
  });

  it("gives different bars for different seeds", () => {
    const a = syntheticUniverse({ ...options, seed: 7 });
    const b = syntheticUniverse({ ...options, seed: 8 });
    a.forEach((inst, k) => {
      for (const tf of ALL) expect(sameBars(bars(inst, tf), bars(b[k]!, tf))).toBe(false);
    });
  });

  it("does not depend on which other timeframes or how many bars were asked for", () => {
    const full = syntheticUniverse({ ...options, bars: 120 });
    const d = syntheticUniverse({ ...options, timeframes: ["d"], bars: 30 });
    const m5 = syntheticUniverse({ ...options, timeframes: ["m5", "w"], bars: 80 });
    const tail = (b: Bars, n: number): Bars => {
      const from = b.time.length - n;
      const cut = (x: ArrayLike<number>) => Array.from(x).slice(from);
      return { time: cut(b.time), open: cut(b.open), high: cut(b.high), low: cut(b.low), close: cut(b.close), volume: cut(b.volume) };
    };
    full.forEach((inst, k) => {
      expect(sameBars(tail(bars(inst, "d"), 30), bars(d[k]!, "d"))).toBe(true);
      expect(sameBars(tail(bars(inst, "m5"), 80), bars(m5[k]!, "m5"))).toBe(true);
      expect(sameBars(tail(bars(inst, "w"), 80), bars(m5[k]!, "w"))).toBe(true);
    });
  });
});

describe("bars", () => {
  for (const market of ["CRYPTO", "FOREX"]) {
    for (const [label, end] of [
      ["the default end", DEFAULT_SYNTHETIC_END],
      ["an end inside every bar (Wednesday 14:37:12.345)", Date.UTC(2025, 9, 15, 14, 37, 12, 345)],
      ["an end on a Saturday", Date.UTC(2025, 9, 18, 9, 30)],
      ["an end on a Sunday evening", Date.UTC(2025, 9, 19, 22, 0, 0, 1)],
    ] as const) {
      it(`${market}, ${label}: exactly \`bars\` bars, invariants, exact aggregation between every pair`, () => {
        const u = syntheticUniverse({ market, symbols: 6, timeframes: ALL, bars: 300, end, seed: 3 });
        for (const inst of u) {
          for (const tf of ALL) expect(invariantViolations(bars(inst, tf), tf, market, end, 300)).toEqual([]);
          const { bad, exact } = allPairs(inst, ALL, market);
          expect(bad).toEqual([]);
          expect(exact).toBeGreaterThan(300);
        }
      });
    }
  }

  it("keeps realistic volume ranges (integers, spikes but no explosions)", () => {
    const u = syntheticUniverse({ market: "CRYPTO", symbols: 50, timeframes: ["h1"], bars: 300 });
    let spikes = 0;
    for (const inst of u) {
      const v = bars(inst, "h1").volume;
      const sorted = Array.from(v).sort((a, b) => a - b);
      const median = sorted[150]!;
      expect(median).toBeGreaterThan(0);
      for (let i = 0; i < v.length; i++) if (v[i]! > 3 * median) spikes++;
    }
    expect(spikes).toBeGreaterThan(0);
    expect(spikes).toBeLessThan(50 * 300 * 0.1);
  });

  it("has bars that close at their high and gaps between bars, occasionally", () => {
    const u = syntheticUniverse({ market: "CRYPTO", symbols: 20, timeframes: ["h1", "d"], bars: 300 });
    let atHigh = 0;
    let gaps = 0;
    for (const inst of u) {
      const b = bars(inst, "h1");
      for (let i = 1; i < 300; i++) {
        if (b.close[i] === b.high[i]) atHigh++;
        if (b.open[i] !== b.close[i - 1]) gaps++;
      }
    }
    expect(atHigh).toBeGreaterThan(0);
    expect(atHigh).toBeLessThan(20 * 300 * 0.5);
    expect(gaps).toBeGreaterThan(0);
    expect(gaps).toBeLessThan(20 * 300 * 0.05);
  });
});

describe("no future information", () => {
  it("a later end extends the same history, and the in-progress bar is what existed by the earlier end", () => {
    for (const market of ["CRYPTO", "FOREX"]) {
      const end1 = Date.UTC(2025, 6, 16, 10, 23); // Wednesday 10:23, on a minute boundary
      const end2 = end1 + 3 * DAY + 5 * HOUR + 17 * MINUTE + 5_123;
      const early = syntheticUniverse({ market, symbols: 4, timeframes: ALL, bars: 100, end: end1 });
      const late = syntheticUniverse({ market, symbols: 4, timeframes: ALL, bars: 100, end: end2 });
      // Minutes from before the Monday of end1's week up to end2, to rebuild every in-progress bar.
      const minutes = syntheticUniverse({ market, symbols: 4, timeframes: ["m1"], bars: 12_000, end: end2 });
      early.forEach((inst, k) => {
        const later = late[k]!;
        const m1 = bars(minutes[k]!, "m1");
        for (const tf of ALL) {
          const a = bars(inst, tf);
          const b = bars(later, tf);
          const dur = TIMEFRAME_MS[tf];
          const index = new Map(Array.from(b.time, (t, i) => [t, i]));
          for (let i = 0; i < a.time.length; i++) {
            const t = a.time[i]!;
            const j = index.get(t);
            if (j === undefined) continue;
            if (t + dur <= end1) {
              expect([a.open[i], a.high[i], a.low[i], a.close[i], a.volume[i]]).toEqual([b.open[j], b.high[j], b.low[j], b.close[j], b.volume[j]]);
            } else {
              // In progress at end1: the aggregate of the later run's minutes before end1.
              expect(m1.time[0]).toBeLessThanOrEqual(t);
              let h = -Infinity;
              let l = Infinity;
              let v = 0;
              let o = NaN;
              let c = NaN;
              for (let m = 0; m < m1.time.length; m++) {
                const mt = m1.time[m]!;
                if (mt < t || mt >= end1) continue;
                if (Number.isNaN(o)) o = m1.open[m]!;
                h = Math.max(h, m1.high[m]!);
                l = Math.min(l, m1.low[m]!);
                c = m1.close[m]!;
                v += m1.volume[m]!;
              }
              expect([a.open[i], a.high[i], a.low[i], a.close[i], a.volume[i]]).toEqual([o, h, l, c, v]);
            }
          }
        }
      });
    }
  });

  it("an m1 bar in progress at a sub-minute end holds only part of the finished minute", () => {
    const end1 = Date.UTC(2025, 6, 16, 10, 23, 31, 250);
    const early = syntheticUniverse({ market: "CRYPTO", symbols: 20, timeframes: ["m1"], bars: 3, end: end1 });
    const late = syntheticUniverse({ market: "CRYPTO", symbols: 20, timeframes: ["m1"], bars: 3, end: end1 + MINUTE });
    let differs = 0;
    early.forEach((inst, k) => {
      const a = bars(inst, "m1");
      const b = bars(late[k]!, "m1");
      expect(a.time[2]).toBe(b.time[1]);
      expect(a.open[2]).toBe(b.open[1]);
      expect(a.high[2]).toBeLessThanOrEqual(b.high[1]!);
      expect(a.low[2]).toBeGreaterThanOrEqual(b.low[1]!);
      expect(a.volume[2]).toBeLessThanOrEqual(b.volume[1]!);
      if (a.close[2] !== b.close[1] || a.volume[2] !== b.volume[1]) differs++;
    });
    expect(differs).toBeGreaterThan(0);
  });
});

describe("properties", () => {
  it("random seeds, ends, markets and timeframe sets: invariants and exact aggregation", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        fc.integer({ min: Date.UTC(2019, 0, 1), max: Date.UTC(2031, 0, 1) }),
        fc.constantFrom("FOREX", "CRYPTO"),
        fc.subarray(ALL, { minLength: 1 }),
        fc.integer({ min: 1, max: 60 }),
        (seed, end, market, timeframes, count) => {
          const u = syntheticUniverse({ market, symbols: 2, timeframes, bars: count, seed, end });
          for (const inst of u) {
            for (const tf of timeframes) expect(invariantViolations(bars(inst, tf), tf, market, end, count)).toEqual([]);
            expect(allPairs(inst, timeframes, market).bad).toEqual([]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("random ends: the same seed and end always give the same bars", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }), fc.nat(), (end, seed) => {
        const o: SyntheticOptions = { market: "FOREX", symbols: 2, timeframes: ["m5", "h4", "w"], bars: 30, seed, end };
        const a = syntheticUniverse(o);
        const b = syntheticUniverse(o);
        a.forEach((inst, k) => (["m5", "h4", "w"] as const).forEach((tf) => expect(sameBars(bars(inst, tf), bars(b[k]!, tf))).toBe(true)));
      }),
      { numRuns: 20 },
    );
  });
});

describe("realism: typical screens match some but not all instruments", () => {
  function hitsPerScreen(u: Instrument[]): Map<string, number> {
    return new Map(Object.entries(SCREENS).map(([name, screen]) => [name, u.filter((inst) => screen(bars(inst, "h1"))).length]));
  }

  it("200 CRYPTO × 300 h1 bars with the defaults: every screen matches some, none matches all", () => {
    const u = syntheticUniverse({ market: "CRYPTO", symbols: 200, timeframes: ["h1"], bars: 300 });
    for (const [name, hits] of hitsPerScreen(u)) {
      expect(hits, name).toBeGreaterThan(0);
      expect(hits, name).toBeLessThan(u.length);
    }
  });

  it("other seeds and bar-aligned ends: never all, and every screen matches over five ends", () => {
    // Each screen matches a few percent of instruments at a given bar, so a single run may
    // have none for the rarest one; over five runs each must show up.
    const totals = new Map<string, number>();
    for (let r = 0; r < 5; r++) {
      const end = Date.UTC(2025, 10, 12, 15) + r * 53 * HOUR;
      const u = syntheticUniverse({ market: "CRYPTO", symbols: 200, timeframes: ["h1"], bars: 300, seed: 2 + r, end });
      for (const [name, hits] of hitsPerScreen(u)) {
        expect(hits, name).toBeLessThan(u.length);
        totals.set(name, (totals.get(name) ?? 0) + hits);
      }
    }
    for (const name of Object.keys(SCREENS)) expect(totals.get(name), name).toBeGreaterThan(2);
  });

  it("FOREX majors and crosses × 300 h1 bars, the defaults (Friday's last hour)", () => {
    const u = syntheticUniverse({ market: "FOREX", symbols: FOREX_SYMBOLS.length, timeframes: ["h1"], bars: 300, seed: 5 });
    let total = 0;
    for (const [name, screen] of Object.entries(SCREENS)) {
      const hits = u.filter((inst) => screen(bars(inst, "h1"))).length;
      expect(hits, name).toBeLessThan(u.length);
      total += hits;
    }
    expect(total).toBeGreaterThan(0);
  });

  it("with the last h1 bar in progress (ends like Date.now()), across five ends", () => {
    // An in-progress bar closes at its high only when the price is at its high right now, so
    // `close >= highest(high, 52)` is rarer mid-bar (as in live data); it is checked over five ends.
    const totals = new Map<string, number>();
    for (let r = 0; r < 5; r++) {
      const end = Date.UTC(2026, 10, 22, 9, 41, 7, 500) + r * 29 * HOUR + r * 7_919_013;
      const u = syntheticUniverse({ market: "CRYPTO", symbols: 200, timeframes: ["h1"], bars: 300, seed: 42 + r, end });
      for (const [name, screen] of Object.entries(SCREENS)) {
        const hits = u.filter((inst) => screen(bars(inst, "h1"))).length;
        expect(hits, name).toBeLessThan(u.length);
        totals.set(name, (totals.get(name) ?? 0) + hits);
      }
    }
    for (const name of Object.keys(SCREENS)) expect(totals.get(name), name).toBeGreaterThan(0);
  });
});

/** What the speed targets generate (the targets themselves are timed in bench/synthetic.ts, never here). */
describe("large universes", () => {
  it("250 symbols × 8 timeframes × 300 bars: every symbol", () => {
    const u = syntheticUniverse({ market: "CRYPTO", symbols: 250, timeframes: ALL, bars: 300, end: Date.UTC(2026, 10, 22, 9, 41, 7, 500) });
    expect(u).toHaveLength(250);
  });

  it("300 weekly bars plus 300 m1 bars: the minutes agree with their weeks", () => {
    const u = syntheticUniverse({ market: "CRYPTO", symbols: 250, timeframes: ["w", "m1"], bars: 300 });
    expect(allPairs(u[0]!, ["w", "m1"]).bad).toEqual([]);
  });
});
