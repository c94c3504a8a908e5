/**
 * `syntheticUniverse`: deterministic synthetic OHLCV bars for the FOREX and CRYPTO markets,
 * used by library users, `xql run --synthetic`, the service's first-start seeding, the tests
 * and the benchmarks.
 *
 * How the bars are made, and why:
 * - Top-down. A weekly process (trend/range regimes, GARCH-style volatility clustering, fat
 *   tails, weekend gaps, volume following |return|) makes the weekly bars. Each bar is then
 *   split into its children (w → d → h4 → h1 → m30 → m15 → m5 → m1) by a bridge that starts
 *   at the bar's open, ends at its close, stays inside [low, high], gives the high to one child
 *   and the low to one child, and splits the integer volume exactly. So every coarser bar is
 *   EXACTLY the aggregate of its finer bars, at every pair of timeframes.
 * - Only what is needed. A bar is split only if a requested finer timeframe has bars inside
 *   it, so 300 weekly bars plus 300 m1 bars split a few hundred bars, not three million.
 * - Counter-based randomness. Every split draws from a generator seeded by (seed, symbol,
 *   level, bar time), and the weekly process is anchored at a fixed week. A bar therefore
 *   never depends on which other bars were asked for: the last 100 daily bars of a 300-bar
 *   request are the 100-bar request, and a later `end` extends the same history.
 * - No future information. The bar containing `end − 1` may be in progress; it is the
 *   aggregate of the parts of it that exist by `end`, found by splitting it further (below m1
 *   through hidden second and millisecond levels) and keeping only the children before `end`.
 * - FOREX follows its session (`src/sessions/periods.ts`): it trades from Sunday 17:00 to
 *   Friday 17:00 New York time (US daylight saving included), a week has 5 daily bars opening
 *   at 17:00 New York, h4 bars open at 17:00, 21:00, 01:00, ... New York, and no bar opens
 *   between Friday 17:00 and Sunday 17:00; the weekly bar opens Sunday 17:00 New York. CRYPTO
 *   trades 24/7 on UTC days and Monday weeks.
 * - Prices are rounded to each symbol's tick, so bars that close at their high (and ties for
 *   `highest`) happen as they do in real data. Volumes are integers so sums are exact.
 */
import { TIMEFRAMES, isTimeframe, type Bars, type Instrument, type Timeframe } from "../types.js";
import { CRYPTO_SPECS, FOREX_SPECS, extendSpecs, type SymbolSpec } from "./symbols.js";
import { Rng, hashInteger, hashString, streamKey } from "./rng.js";
import { fromNewYorkWallClock, newYorkWallClock } from "../sessions/new-york.js";

/** Options of {@link syntheticUniverse}: which market, how many symbols, which timeframes and how many bars. */
export interface SyntheticOptions {
  /** `FOREX` or `CRYPTO`, matched case-insensitively. */
  market: string;
  /** How many instruments, taken in list order (FOREX_SYMBOLS / CRYPTO_SYMBOLS), extended with made-up names past the list. */
  symbols: number;
  /** Timeframes to generate; every one gets exactly `bars` bars. */
  timeframes: Timeframe[];
  /** Bars per timeframe, oldest first. */
  bars: number;
  /** Integer seed; default {@link DEFAULT_SYNTHETIC_SEED}. */
  seed?: number;
  /**
   * Milliseconds since epoch where the data ends (exclusive); default
   * {@link DEFAULT_SYNTHETIC_END}. The last bar of each timeframe is the one containing
   * `end − 1` (for FOREX, the last trading bar at or before it), in progress when `end` is
   * not on that timeframe's boundary.
   */
  end?: number;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** Monday 2026-01-05 00:00 UTC: a fixed default so the same seed gives the same bars everywhere. */
export const DEFAULT_SYNTHETIC_END = Date.UTC(2026, 0, 5);
/** The seed {@link syntheticUniverse} uses when {@link SyntheticOptions.seed} is not given. */
export const DEFAULT_SYNTHETIC_SEED = 1;

/**
 * Week 0 of the weekly process (Monday 2024-01-01): the symbol's list price is the close of
 * the week before it; weeks before are generated backwards, weeks after forwards. It lies
 * well before the default end so the data does not end on the round list prices.
 */
const ANCHOR = Date.UTC(2024, 0, 1);
/** The FOREX week 0: it opens Sunday 2023-12-31 at 17:00 New York (a wall-clock time written as UTC). */
const FOREX_ANCHOR_WALL = Date.UTC(2023, 11, 31, 17);
/** `end` bounds: the weekly process walks from the anchor, so the distance from it is kept sane. */
const MIN_END = Date.UTC(1970, 0, 1);
const MAX_END = Date.UTC(2200, 0, 1);
/** Volumes stay integers that a double holds exactly, sums included. */
const MAX_WEEK_VOLUME = 2 ** 52;

// Weekly process constants: GARCH(1,1) weights, regime switching, and a weak pull back to the
// symbol's price level (half-life about half a year) so long histories keep realistic levels.
const GARCH_A = 0.12;
const GARCH_B = 0.83;
const REGIME_SWITCH = 0.12;
const TREND_DRIFT = 0.35;
const REVERSION = 0.025;

type MarketName = "FOREX" | "CRYPTO";

interface MarketModel {
  readonly name: MarketName;
  readonly specs: readonly SymbolSpec[];
  /** 5 (Monday to Friday) or 7. */
  readonly tradingDays: 5 | 7;
  /** Gaps between a Friday close and a Monday open every week (FOREX), or only rarely (CRYPTO). */
  readonly weekendGaps: boolean;
  /** Scales the intraday gap probability. */
  readonly intradayGapScale: number;
  /** Relative activity (volume and volatility) by UTC hour. */
  readonly hourly: readonly number[];
  /** Relative activity of each weekday, Monday first. */
  readonly weekday: readonly number[];
}

const MARKETS: Readonly<Record<MarketName, MarketModel>> = {
  FOREX: {
    name: "FOREX",
    specs: FOREX_SPECS,
    tradingDays: 5,
    weekendGaps: true,
    intradayGapScale: 0.3,
    // Quiet Asian hours, busy London morning and London/New York overlap.
    hourly: [
      0.55, 0.6, 0.65, 0.7, 0.7, 0.75, 0.85, 1.2, 1.5, 1.45, 1.35, 1.3, 1.5, 1.7, 1.75, 1.6, 1.35, 1.05, 0.85,
      0.75, 0.65, 0.55, 0.5, 0.5,
    ],
    weekday: [0.95, 1, 1.05, 1.05, 0.95],
  },
  CRYPTO: {
    name: "CRYPTO",
    specs: CRYPTO_SPECS,
    tradingDays: 7,
    weekendGaps: false,
    intradayGapScale: 1,
    // A mild swing peaking with the US session.
    hourly: Array.from({ length: 24 }, (_, h) => 1 + 0.3 * Math.cos((2 * Math.PI * (h - 15)) / 24)),
    weekday: [1.05, 1.05, 1.05, 1.05, 1.05, 0.75, 0.75],
  },
};

/** One level of the split chain: the 8 timeframes, then two hidden levels for in-progress m1 bars. */
interface Level {
  readonly timeframe: Timeframe | null;
  readonly dur: number;
  /** Children per bar (0 at the millisecond level). */
  readonly children: number;
  /** Per child boundary: chance of a gap (a child opening away from the previous close). */
  readonly gap: number;
  /** Per child: chance of a volume spike of 3–8× its siblings' activity. */
  readonly spike: number;
  /** Per child and side: chance of no wick (bars that close at their high, open at their low, ...). */
  readonly zeroWick: number;
  /** Autocorrelation of activity between siblings: busy periods cluster. */
  readonly rho: number;
  /** Whether children follow the market's hour-of-day and day-of-week activity. */
  readonly seasonal: boolean;
}

function levelsOf(model: MarketModel): Level[] {
  const g = model.intradayGapScale;
  const day = model.weekendGaps ? 0 : 0.02;
  const intraday = { spike: 0.025, zeroWick: 0.2, rho: 0.55, seasonal: true };
  const sub = { gap: 0, spike: 0, zeroWick: 0.5, rho: 0.3, seasonal: false };
  return [
    { timeframe: "w", dur: WEEK, children: model.tradingDays, gap: day, spike: 0.04, zeroWick: 0.08, rho: 0.5, seasonal: true },
    { timeframe: "d", dur: DAY, children: 6, gap: 0.01 * g, spike: 0.03, zeroWick: 0.12, rho: 0.5, seasonal: true },
    { timeframe: "h4", dur: 4 * HOUR, children: 4, gap: 0.004 * g, ...intraday },
    { timeframe: "h1", dur: HOUR, children: 2, gap: 0.004 * g, ...intraday },
    { timeframe: "m30", dur: 30 * MINUTE, children: 2, gap: 0.004 * g, ...intraday },
    { timeframe: "m15", dur: 15 * MINUTE, children: 3, gap: 0.004 * g, ...intraday },
    { timeframe: "m5", dur: 5 * MINUTE, children: 5, gap: 0.004 * g, ...intraday },
    { timeframe: "m1", dur: MINUTE, children: 60, ...sub },
    { timeframe: null, dur: SECOND, children: 1000, ...sub },
    { timeframe: null, dur: 1, children: 0, ...sub },
  ];
}

/** Scratch space of one level's split, reused for every bar of that level. */
interface Scratch {
  o: Float64Array;
  h: Float64Array;
  l: Float64Array;
  c: Float64Array;
  v: Float64Array;
  act: Float64Array;
  /** Path points p[0..n]: the open of child i is p[i]. */
  p: Float64Array;
  /** Brownian path and cumulative activity over the points, for the bridge. */
  w: Float64Array;
  tau: Float64Array;
}

interface Output {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  cursor: number;
}

/** Weekly bars of one symbol, for weeks kStart..kEnd. */
interface Weekly {
  o: Float64Array;
  h: Float64Array;
  l: Float64Array;
  c: Float64Array;
  v: Float64Array;
}

/** The random draws of one week, in a fixed order so both walk directions read the same values. */
interface WeekDraws {
  uSwitch: number;
  uRegime: number;
  z: number;
  uTail: number;
  zGap: number;
  uGap: number;
  zHigh: number;
  uHigh: number;
  zLow: number;
  uLow: number;
  zVolume: number;
  uSpike: number;
  uSpikeSize: number;
}

/**
 * Week k of the weekly process opens at `weekOpen(k)`: Monday 00:00 UTC for CRYPTO; Sunday 17:00
 * New York for FOREX (the evening before the same Monday), whose five trading days are 24 hours
 * each whatever daylight saving does (it changes on a Sunday at 02:00, in the weekend).
 */
function weekOpen(model: MarketModel, k: number): number {
  return model.tradingDays === 7 ? ANCHOR + k * WEEK : fromNewYorkWallClock(FOREX_ANCHOR_WALL + k * WEEK);
}

/** The week whose open is the latest at or before `t` (for FOREX, a weekend time is in the week that just closed). */
function weekIndex(model: MarketModel, t: number): number {
  return model.tradingDays === 7 ? Math.floor((t - ANCHOR) / WEEK) : Math.floor((newYorkWallClock(t) - FOREX_ANCHOR_WALL) / WEEK);
}

function resolveMarket(market: unknown): MarketModel {
  if (typeof market !== "string") throw new TypeError("syntheticUniverse: market must be a string");
  const name = market.toUpperCase();
  if (!Object.hasOwn(MARKETS, name)) {
    throw new RangeError(`syntheticUniverse: unknown market "${market}"; known markets are ${Object.keys(MARKETS).join(", ")}`);
  }
  return MARKETS[name as MarketName];
}

function checkInteger(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
    throw new RangeError(`syntheticUniverse: ${name} must be an integer ${range}, got ${String(value)}`);
  }
  return value;
}

/** Generates one market's universe; one instance per call, reused across its symbols. */
class Generator {
  private readonly levels: Level[];
  private readonly seedHash: number;
  private readonly rng = new Rng();
  /** Open time of the oldest requested bar per level (Infinity when not requested). */
  private readonly start: number[];
  /** The earliest `start` at this level or any finer one: where bars of this level are needed. */
  private readonly minStart: number[];
  private readonly scratch: Scratch[];
  private readonly out: (Output | null)[];
  private readonly draws: WeekDraws = {
    uSwitch: 0, uRegime: 0, z: 0, uTail: 0, zGap: 0, uGap: 0, zHigh: 0, uHigh: 0, zLow: 0, uLow: 0,
    zVolume: 0, uSpike: 0, uSpikeSize: 0,
  };
  private symbolHash = 0;
  private scale = 1;
  // The visible (as of `end`) bar of the last visit, read by the parent right after the call.
  private vo = 0;
  private vh = 0;
  private vl = 0;
  private vc = 0;
  private vv = 0;

  constructor(
    private readonly model: MarketModel,
    private readonly requested: ReadonlySet<Timeframe>,
    private readonly bars: number,
    seed: number,
    private readonly end: number,
  ) {
    this.levels = levelsOf(model);
    this.seedHash = hashInteger(seed);
    this.start = this.levels.map((level) =>
      level.timeframe !== null && requested.has(level.timeframe) ? this.oldestBar(level) : Infinity,
    );
    this.minStart = this.start.map((_, i) => Math.min(Infinity, ...this.start.slice(i)));
    this.minStart.push(Infinity);
    this.scratch = this.levels.map(({ children: n }) => ({
      o: new Float64Array(n),
      h: new Float64Array(n),
      l: new Float64Array(n),
      c: new Float64Array(n),
      v: new Float64Array(n),
      act: new Float64Array(n),
      p: new Float64Array(n + 1),
      w: new Float64Array(n + 1),
      tau: new Float64Array(n + 1),
    }));
    this.out = this.levels.map(() => null);
  }

  /** Open time of the oldest of `bars` bars of a level ending with the one containing end − 1. */
  private oldestBar(level: Level): number {
    if (this.bars === 0) return Infinity;
    const dur = level.dur;
    const model = this.model;
    const lastWeek = weekIndex(model, this.end - 1);
    if (level.dur === WEEK) return weekOpen(model, lastWeek - (this.bars - 1));
    if (model.tradingDays === 7) return Math.floor((this.end - 1) / dur) * dur - (this.bars - 1) * dur;
    // Trading bars of a week are contiguous, five days from its open: count in trading bars.
    const perWeek = (5 * DAY) / dur;
    const open = weekOpen(model, lastWeek);
    const offset = Math.min(this.end - 1 - open, 5 * DAY - 1);
    const index = lastWeek * perWeek + Math.floor(offset / dur) - (this.bars - 1);
    const k = Math.floor(index / perWeek);
    return weekOpen(model, k) + (index - k * perWeek) * dur;
  }

  instrument(spec: SymbolSpec): Instrument {
    this.symbolHash = hashString(spec.symbol);
    this.scale = 10 ** spec.decimals;
    const bars: Partial<Record<Timeframe, Bars>> = {};
    this.levels.forEach((level, i) => {
      if (level.timeframe === null || !this.requested.has(level.timeframe)) return;
      const n = this.bars;
      const output: Output = {
        time: new Float64Array(n),
        open: new Float64Array(n),
        high: new Float64Array(n),
        low: new Float64Array(n),
        close: new Float64Array(n),
        volume: new Float64Array(n),
        cursor: 0,
      };
      this.out[i] = output;
    });

    if (this.minStart[0]! < Infinity) {
      const kStart = weekIndex(this.model, this.minStart[0]!);
      const kEnd = weekIndex(this.model, this.end - 1);
      const weekly = this.weekly(spec, kStart, kEnd);
      for (let k = kStart; k <= kEnd; k++) {
        const i = k - kStart;
        this.visit(0, weekOpen(this.model, k), weekly.o[i]!, weekly.h[i]!, weekly.l[i]!, weekly.c[i]!, weekly.v[i]!);
      }
    }

    // Finest first, like TIMEFRAMES.
    for (const tf of TIMEFRAMES) {
      const i = this.levels.findIndex((level) => level.timeframe === tf);
      const output = this.out[i];
      if (!output) continue;
      if (output.cursor !== this.bars) {
        throw new Error(`internal: syntheticUniverse made ${output.cursor} ${tf} bars instead of ${this.bars}`);
      }
      const { time, open, high, low, close, volume } = output;
      bars[tf] = { time, open, high, low, close, volume };
      this.out[i] = null;
    }
    return { symbol: spec.symbol, bars };
  }

  private round(x: number): number {
    return Math.round(x * this.scale) / this.scale;
  }

  /** Rounded to the tick and kept inside [l, h] (both on the tick grid, so the result is too). */
  private clamp(x: number, l: number, h: number): number {
    return Math.min(h, Math.max(l, Math.round(x * this.scale) / this.scale));
  }

  private drawWeek(k: number): WeekDraws {
    const rng = this.rng;
    const d = this.draws;
    rng.reseed(streamKey(this.seedHash, this.symbolHash, 100, k));
    d.uSwitch = rng.next();
    d.uRegime = rng.next();
    d.z = rng.normal();
    d.uTail = rng.next();
    d.zGap = rng.normal();
    d.uGap = rng.next();
    d.zHigh = rng.normal();
    d.uHigh = rng.next();
    d.zLow = rng.normal();
    d.uLow = rng.next();
    d.zVolume = rng.normal();
    d.uSpike = rng.next();
    d.uSpikeSize = rng.next();
    return d;
  }

  /**
   * The weekly bars of weeks kStart..kEnd. The process starts at the anchor week with the
   * symbol's price level as the close of week −1, and runs forwards for weeks ≥ 0 and
   * backwards for weeks < 0, so any week's bar is the same whatever range is asked for.
   */
  private weekly(spec: SymbolSpec, kStart: number, kEnd: number): Weekly {
    const count = kEnd - kStart + 1;
    const weekly: Weekly = {
      o: new Float64Array(count),
      h: new Float64Array(count),
      l: new Float64Array(count),
      c: new Float64Array(count),
      v: new Float64Array(count),
    };
    const sbar = spec.weeklyVol;
    const logBase = Math.log(spec.price);
    const omega = sbar * sbar * (1 - GARCH_A - GARCH_B);
    const tick = 1 / this.scale;
    const anchorClose = Math.max(tick, this.round(spec.price));
    const minutes = this.model.tradingDays * 1440;

    // Regime 0 ranges (quieter), 1 trends up, 2 trends down (a little more volatile).
    let regime = 0;
    let sig2 = sbar * sbar;
    let lastR = 0;
    const step = (k: number) => {
      const d = this.drawWeek(k);
      if (d.uSwitch < REGIME_SWITCH) regime = d.uRegime < 0.4 ? 0 : d.uRegime < 0.7 ? 1 : 2;
      sig2 = omega + GARCH_A * lastR * lastR + GARCH_B * sig2;
      const sig = Math.sqrt(sig2) * (regime === 0 ? 0.75 : regime === 2 ? 1.1 : 1);
      const drift = regime === 1 ? TREND_DRIFT * sbar : regime === 2 ? -TREND_DRIFT * sbar : 0;
      const shock = sig * d.z * (d.uTail < 0.05 ? 2.5 : 1);
      const gap = this.model.weekendGaps
        ? d.zGap * sbar * (d.uGap < 0.05 ? 0.3 : 0.05)
        : d.uGap < 0.03
          ? d.zGap * sbar * 0.15
          : 0;
      return { d, sig, move: drift + shock, gap };
    };
    const finish = (k: number, o: number, c: number, sig: number, d: WeekDraws) => {
      lastR = Math.log(c / o);
      if (k < kStart || k > kEnd) return;
      const i = k - kStart;
      const top = Math.max(o, c);
      const bottom = Math.min(o, c);
      weekly.o[i] = o;
      weekly.c[i] = c;
      weekly.h[i] = d.uHigh < 0.08 ? top : Math.max(top, this.round(top * Math.exp(Math.abs(d.zHigh) * sig * 0.45)));
      weekly.l[i] =
        d.uLow < 0.08 ? bottom : Math.max(tick, Math.min(bottom, this.round(bottom * Math.exp(-Math.abs(d.zLow) * sig * 0.45))));
      const activity = Math.exp(0.25 * d.zVolume - 0.03) * (1 + 0.5 * Math.min(4, Math.abs(lastR) / sbar)) / 1.4;
      const spike = d.uSpike < 0.04 ? 2 + 3 * d.uSpikeSize : 1;
      weekly.v[i] = Math.min(MAX_WEEK_VOLUME, Math.round(spec.volumePerMinute * minutes * activity * spike));
    };

    if (kEnd >= 0) {
      let prevClose = anchorClose;
      for (let k = 0; k <= kEnd; k++) {
        const { d, sig, move, gap } = step(k);
        const o = gap === 0 ? prevClose : Math.max(tick, this.round(prevClose * Math.exp(gap)));
        const c = Math.max(tick, this.round(o * Math.exp(move - REVERSION * (Math.log(o) - logBase))));
        finish(k, o, c, sig, d);
        prevClose = c;
      }
    }
    if (kStart < 0) {
      regime = 0;
      sig2 = sbar * sbar;
      lastR = 0;
      let c = anchorClose;
      for (let k = -1; k >= kStart; k--) {
        const { d, sig, move, gap } = step(k);
        // Walking back in time, the pull towards the price level acts on the open.
        const o = Math.max(tick, this.round(c * Math.exp(-(move + REVERSION * (Math.log(c) - logBase)))));
        finish(k, o, c, sig, d);
        // This week's gap separates it from the previous week's close.
        c = gap === 0 ? o : Math.max(tick, this.round(o * Math.exp(-gap)));
      }
    }
    return weekly;
  }

  /**
   * Emits the bar (t, o, h, l, c, v) of level `lv` if requested, splitting it when a finer
   * requested timeframe needs its children or when it is still in progress at `end`, and
   * leaves its visible values (the aggregate of its children before `end`) in vo..vv.
   */
  private visit(lv: number, t: number, o: number, h: number, l: number, c: number, v: number): void {
    const level = this.levels[lv]!;
    const end = this.end;
    const complete = t + level.dur <= end;
    let ro = o;
    let rh = h;
    let rl = l;
    let rc = c;
    let rv = v;
    if (level.children > 0 && (!complete || t + level.dur > this.minStart[lv + 1]!)) {
      this.split(lv, t, o, h, l, c, v);
      const s = this.scratch[lv]!;
      const childDur = this.levels[lv + 1]!.dur;
      const childNeeded = this.minStart[lv + 1]!;
      for (let i = 0; i < level.children; i++) {
        const ct = t + i * childDur;
        if (ct >= end) break;
        let co = s.o[i]!;
        let ch = s.h[i]!;
        let cl = s.l[i]!;
        let cc = s.c[i]!;
        let cv = s.v[i]!;
        if (ct + childDur > end || ct + childDur > childNeeded) {
          this.visit(lv + 1, ct, co, ch, cl, cc, cv);
          co = this.vo;
          ch = this.vh;
          cl = this.vl;
          cc = this.vc;
          cv = this.vv;
        }
        if (!complete) {
          if (i === 0) {
            ro = co;
            rh = ch;
            rl = cl;
            rv = cv;
          } else {
            if (ch > rh) rh = ch;
            if (cl < rl) rl = cl;
            rv += cv;
          }
          rc = cc;
        }
      }
    }
    const output = this.out[lv];
    if (output && t >= this.start[lv]!) {
      const j = output.cursor++;
      if (j >= this.bars) throw new Error(`internal: syntheticUniverse made too many ${level.timeframe} bars`);
      output.time[j] = t;
      output.open[j] = ro;
      output.high[j] = rh;
      output.low[j] = rl;
      output.close[j] = rc;
      output.volume[j] = rv;
    }
    this.vo = ro;
    this.vh = rh;
    this.vl = rl;
    this.vc = rc;
    this.vv = rv;
  }

  /** Relative activity of a child bar: hour of day for intraday bars, weekday for daily ones. */
  private season(t: number, dur: number): number {
    const dayIndex = Math.floor(t / DAY);
    if (dur >= DAY) {
      // The weekday of the bar's middle: a FOREX day opening Sunday 17:00 New York is Monday's.
      const middle = Math.floor((t + dur / 2) / DAY);
      return this.model.weekday[(((middle + 3) % 7) + 7) % 7] ?? 1; // 1970-01-01 was a Thursday
    }
    const hour = Math.floor((t - dayIndex * DAY) / HOUR);
    if (dur <= HOUR) return this.model.hourly[hour]!;
    let sum = 0;
    const hours = dur / HOUR;
    for (let k = 0; k < hours; k++) sum += this.model.hourly[(hour + k) % 24]!;
    return sum / hours;
  }

  /**
   * Splits one bar into its children so that they aggregate to it exactly: the first child
   * opens at `o`, the last closes at `c`, one child's high is `h`, one child's low is `l`,
   * every price is inside [l, h], and the integer volume `v` is shared out exactly.
   */
  private split(lv: number, t: number, o: number, h: number, l: number, c: number, v: number): void {
    const level = this.levels[lv]!;
    const n = level.children;
    const childDur = this.levels[lv + 1]!.dur;
    const s = this.scratch[lv]!;
    const rng = this.rng;
    rng.reseed(streamKey(this.seedHash, this.symbolHash, lv, t));

    // Activity drives both volume and volatility, so spikes in volume come with big moves.
    const act = s.act;
    const rhoC = Math.sqrt(1 - level.rho * level.rho);
    let ar = rng.normal();
    let sumA = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0) ar = level.rho * ar + rhoC * rng.normal();
      let a = Math.exp(0.35 * ar);
      if (level.seasonal) a *= this.season(t + i * childDur, childDur);
      if (level.spike > 0 && rng.next() < level.spike) a *= 3 + 5 * rng.next();
      act[i] = a;
      sumA += a;
    }

    // Volume: proportional shares rounded down, the remainder (fewer than n units) dealt out
    // from a random child, so the children's volumes are integers summing exactly to v.
    let assigned = 0;
    for (let i = 0; i < n; i++) {
      const share = Math.floor((v * act[i]!) / sumA);
      s.v[i] = share;
      assigned += share;
    }
    let remainder = v - assigned;
    let j = Math.floor(rng.next() * n);
    while (remainder > 0) {
      s.v[j]!++;
      remainder--;
      j = (j + 1) % n;
    }
    while (remainder < 0) {
      if (s.v[j]! > 0) {
        s.v[j]!--;
        remainder++;
      }
      j = (j + 1) % n;
    }

    const range = h - l;
    if (!(range > 0)) {
      for (let i = 0; i < n; i++) {
        s.o[i] = o;
        s.h[i] = o;
        s.l[i] = o;
        s.c[i] = o;
      }
      return;
    }
    const meanA = sumA / n;
    const sigma = (range * 0.4) / Math.sqrt(n);

    // Which child carries the high and which the low; where the path is pinned near them.
    // An extreme equal to the open or close is already at an end of the path.
    const p = s.p;
    let kHigh: number;
    let pinHigh = -1;
    if (h === o) kHigh = 0;
    else if (h === c) kHigh = n - 1;
    else {
      kHigh = this.pickWeighted(act, sumA, n);
      pinHigh = this.pinIndex(kHigh, n, -1);
      p[pinHigh] = rng.next() < level.zeroWick ? h : this.clamp(h - rng.next() * 0.3 * range, l, h);
    }
    let kLow: number;
    let pinLow = -1;
    if (l === o) kLow = 0;
    else if (l === c) kLow = n - 1;
    else {
      kLow = this.pickWeighted(act, sumA, n);
      pinLow = this.pinIndex(kLow, n, pinHigh);
      // With no free point next to it (two children, both interior extremes on the middle
      // point), the low is reached by that child's wick alone.
      if (pinLow >= 0) p[pinLow] = rng.next() < level.zeroWick ? l : this.clamp(l + rng.next() * 0.3 * range, l, h);
    }
    p[0] = o;
    p[n] = c;

    // Brownian bridges between consecutive pinned points, in activity time, reflected into
    // [l, h] and rounded to the tick.
    const first = pinHigh >= 0 && (pinLow < 0 || pinHigh < pinLow) ? pinHigh : pinLow;
    const second = first === pinHigh ? pinLow : pinHigh;
    let a = 0;
    if (first >= 0) {
      this.bridge(s, 0, first, meanA, sigma, l, h);
      a = first;
    }
    if (second >= 0) {
      this.bridge(s, a, second, meanA, sigma, l, h);
      a = second;
    }
    this.bridge(s, a, n, meanA, sigma, l, h);

    // Children: open at their point, close at the next one, or, across an occasional gap,
    // somewhere near it.
    for (let i = 0; i < n; i++) {
      s.o[i] = p[i]!;
      s.c[i] = p[i + 1]!;
    }
    if (level.gap > 0) {
      for (let b = 1; b < n; b++) {
        if (rng.next() < level.gap) {
          const sign = rng.next() < 0.5 ? -1 : 1;
          s.c[b - 1] = this.clamp(p[b]! + sign * (0.5 + rng.next()) * sigma * 1.5, l, h);
        }
      }
    }
    for (let i = 0; i < n; i++) {
      const top = Math.max(s.o[i]!, s.c[i]!);
      const bottom = Math.min(s.o[i]!, s.c[i]!);
      const wick = sigma * Math.sqrt(act[i]! / meanA) * 0.5;
      s.h[i] = rng.next() < level.zeroWick ? top : Math.min(h, this.round(top + Math.abs(rng.normal()) * wick));
      s.l[i] = rng.next() < level.zeroWick ? bottom : Math.max(l, this.round(bottom - Math.abs(rng.normal()) * wick));
    }
    s.h[kHigh] = h;
    s.l[kLow] = l;
  }

  /** Fills p[a+1..b−1] with a Brownian bridge from p[a] to p[b]. */
  private bridge(s: Scratch, a: number, b: number, meanA: number, sigma: number, l: number, h: number): void {
    if (b - a < 2) return;
    const rng = this.rng;
    const { p, w, tau, act } = s;
    w[a] = 0;
    tau[a] = 0;
    for (let m = a; m < b; m++) {
      w[m + 1] = w[m]! + sigma * Math.sqrt(act[m]! / meanA) * rng.normal();
      tau[m + 1] = tau[m]! + act[m]!;
    }
    const va = p[a]!;
    const vb = p[b]!;
    const total = tau[b]!;
    const wb = w[b]!;
    for (let m = a + 1; m < b; m++) {
      const f = tau[m]! / total;
      let x = va + (vb - va) * f + (w[m]! - wb * f);
      if (x > h) x = 2 * h - x;
      if (x < l) x = 2 * l - x;
      p[m] = this.clamp(x, l, h);
    }
  }

  /** A child index, more likely for busier children (extremes happen when markets are active). */
  private pickWeighted(act: Float64Array, sumA: number, n: number): number {
    let u = this.rng.next() * sumA;
    for (let i = 0; i < n - 1; i++) {
      u -= act[i]!;
      if (u < 0) return i;
    }
    return n - 1;
  }

  /** An interior path point next to child k (its open or its close), other than `taken`; −1 if none. */
  private pinIndex(k: number, n: number, taken: number): number {
    const before = k >= 1 && k !== taken ? k : -1;
    const after = k + 1 <= n - 1 && k + 1 !== taken ? k + 1 : -1;
    if (before >= 0 && after >= 0) return this.rng.next() < 0.5 ? before : after;
    return before >= 0 ? before : after;
  }
}

/**
 * Deterministic synthetic OHLCV instruments of a market, in list order (see FOREX_SYMBOLS and
 * CRYPTO_SYMBOLS). Every requested timeframe gets exactly `bars` bars, oldest first, and all
 * timeframes agree exactly where they overlap (a daily bar is the aggregate of its h1 bars).
 * FOREX trades Monday 00:00 to Saturday 00:00 UTC, so its d and finer bars skip weekends;
 * CRYPTO trades every day. The bar containing `end − 1` is in progress unless `end` falls on
 * its boundary, built only from what exists by `end`.
 *
 * @throws TypeError or RangeError for options that are missing or of the wrong type, an unknown
 * market or timeframe, or counts that are not integers in range.
 *
 * @example
 * ```ts
 * import { compile, syntheticUniverse } from "xql";
 *
 * const universe = syntheticUniverse({ market: "CRYPTO", symbols: 50, timeframes: ["h1", "d"], bars: 300, seed: 7 });
 * universe[0]!.symbol;                 // "BTCUSDT"
 * universe[0]!.bars.h1!.close.length;  // 300
 * compile('market = "CRYPTO"\ntimeframe = h1\nclose > d::sma(20)').run(universe).results;
 * ```
 */
export function syntheticUniverse(o: SyntheticOptions): Instrument[] {
  if (typeof o !== "object" || o === null) throw new TypeError("syntheticUniverse: options must be an object");
  const model = resolveMarket(o.market);
  const symbols = checkInteger("symbols", o.symbols, 0);
  const bars = checkInteger("bars", o.bars, 0);
  const seed = checkInteger("seed", o.seed ?? DEFAULT_SYNTHETIC_SEED, Number.MIN_SAFE_INTEGER);
  const end = checkInteger("end", o.end ?? DEFAULT_SYNTHETIC_END, MIN_END, MAX_END);
  if (!Array.isArray(o.timeframes)) throw new TypeError("syntheticUniverse: timeframes must be an array");
  for (const tf of o.timeframes) {
    if (typeof tf !== "string" || !isTimeframe(tf)) {
      throw new RangeError(`syntheticUniverse: unknown timeframe "${String(tf)}"; expected one of ${TIMEFRAMES.join(" ")}`);
    }
  }
  const generator = new Generator(model, new Set(o.timeframes), bars, seed, end);
  return extendSpecs(model.specs, symbols, model.name).map((spec) => generator.instrument(spec));
}
