/**
 * Screen history (decisions §5): the screen at each of the last `bars` distinct base bar times
 * of the universe as if that bar were the latest, in one pass per instrument; then the matches
 * as the public result, with the forward-return statistics at 1, 5 and 20 base bars.
 *
 * Why one pass equals `run` over bars truncated after t, bit for bit: every value the
 * evaluator computes at a bar is a function of the bars up to that bar alone, never of the
 * range asked (recursive kernels stream from the first bar; windowed kernels run over primed
 * blocks; everything else is per bar, see values.ts), and alignment takes at each bar the last
 * coarser bar closed by its close. So the condition, columns and sort keys are computed once
 * over the window with every frame at its latest end, and read at each window bar; a window
 * bar where a truncated run would have too little history for a source is skipped, as run
 * skips it (the one short-history rule, `alignFrames`).
 */
import { ColumnsSize, matchBytes, responseTooLarge } from "../json-size.js";
import { TIMEFRAME_MS, type ForwardStats, type HistoryMatch, type HistoryResult, type Instrument, type Timeframe } from "../types.js";
import { anchorsAt, narrowToAnchors } from "./anchor.js";
import { alignFrames, attachFrames, converged, firstAtOrAfterTime, isTrusted, lowerBound } from "./bars.js";
import type { Program } from "./program.js";
import type { Slice } from "./scan.js";
import { bySymbol, order, rowAt, type RankedRow } from "./rows.js";
import { CARRY_MISS, values } from "./values.js";
import { type CarryStore, type ScreenCarry, restoreCarry, saveCarry } from "./carry.js";

/** One match of `history` before statistics: the row and where its base bar is. */
export interface HistoryHit extends RankedRow {
  /** The instrument's base closes, for forward returns. */
  readonly close: ArrayLike<number>;
  readonly index: number;
  readonly length: number;
  /** Bytes of the match's JSON (with its comma), when the pass counts them; else 0. */
  readonly bytes: number;
}

/** What one `history` pass found, before forward statistics. */
export interface HistoryScan {
  /** The window's base bar open times, oldest first. */
  readonly window: readonly number[];
  /** Matches at each window bar, by symbol. */
  readonly perBar: readonly (readonly HistoryHit[])[];
  readonly instruments: number;
  readonly noData: number;
  readonly shortHistory: number;
  /** Matches over the window before limit. */
  readonly matched: number;
  /** Anchored only: instruments evaluated on fewer bars than a source's fetch at some window bar. */
  readonly unconverged?: number;
  /** Anchored with `track`: the tracked symbols' rows at their window bars (see `TrackedRow`). */
  readonly tracked: readonly TrackedRow[];
}

/**
 * A row of a tracked symbol at a window bar where it has a base bar and does not match there;
 * with `limit`, matching or not (a matching symbol may be left out of the bar's rows). A
 * matching row in the bar's rows is not repeated: it carries its columns.
 */
export interface TrackedRow {
  readonly time: number;
  readonly symbol: string;
  readonly columns: Record<string, number | null>;
}

/** The store's way of evaluating history (every path that reads the store, decisions §9). */
export interface AnchoredHistory {
  /**
   * Symbols whose row is wanted at every window bar where they have a base bar, matching or
   * not (an alert's matching symbols, so that an `exit` carries the columns at its bar): where
   * it matches, the bar's rows hold it, elsewhere `tracked` does (see `TrackedRow`). A symbol
   * that matches in the window is tracked from its first match on.
   */
  readonly track?: ReadonlySet<string>;
  /**
   * Carried passes (carry.ts): each symbol's last pass is kept in `store` under `key` and its next
   * bars taken in steps from it while its anchors stay; the values are those of a pass from the
   * anchor, bit for bit.
   */
  readonly carry?: { readonly store: CarryStore; readonly key: string };
}

/**
 * `history`, giving way between instruments when its slice is used up (`historyAsync`; see
 * scan.ts). With `maxBytes`, the JSON of the matches kept is counted as they are built, and the
 * pass stops with a plan error as soon as it exceeds that: an answer too large is never built.
 *
 * With `anchored`, each window bar is evaluated over each source's bars from its anchor
 * (anchor.ts): the window bars that share their anchors (every source's) make one pass over the
 * bars narrowed to those anchors, read at each of its bars — a few passes per window, each a
 * run's worth of work plus its bars. A value at t is then the one a run on the store cut after t
 * gives (its bars narrowed to the same anchors), whatever the window.
 */
export function* historySteps(
  program: Program,
  universe: Iterable<Instrument>,
  bars: number,
  slice: Slice,
  maxBytes = Infinity,
  anchored?: AnchoredHistory,
): Generator<undefined, HistoryScan, undefined> {
  const instruments = [...universe];
  const window = windowTimes(instruments, program.baseTimeframe, bars);
  const perBar: HistoryHit[][] = window.map(() => []);
  // With a limit, each bar's rows are kept in the query's order, their first sort keys beside
  // them in one typed array (see `rankOf`): deciding whether a match enters a bar's list, and
  // where, reads numbers in place instead of following each kept row's pointers.
  const firstKeys = program.limit !== undefined ? window.map(() => new Float64Array(program.limit!)) : [];
  const limit = program.limit;
  const sort = program.sort;
  const keys = new Array<number>(sort.length).fill(0);
  const frames = program.frames;
  const base = program.base;
  const tracked: TrackedRow[] = [];
  const track = anchored?.track;
  let noData = 0;
  let shortHistory = 0;
  let unconverged = 0;
  let matched = 0;
  const size = Number.isFinite(maxBytes) ? new ColumnsSize(program.columns.map((c) => c.text)) : undefined;
  // JSON.stringify(matches): the brackets, and a comma after every match but the last.
  let bytes = 1;
  // The match at bar t (open time bt) of the instrument being scanned, its JSON counted.
  const hitAt = (symbol: string, t: number, bt: number, length: number): HistoryHit => {
    const ranked = rowAt(program, symbol, t);
    const hitBytes = size ? matchBytes(bt, symbol, size.bytes(ranked.row.columns)) : 0;
    bytes += hitBytes;
    if (bytes > maxBytes) throw responseTooLarge(maxBytes);
    return { row: ranked.row, keys: ranked.keys, close: base.bars.close, index: t, length, bytes: hitBytes };
  };

  /**
   * The matches of the instrument loaded at its base bars [from, to), every frame aligned at
   * to − 1: the condition over the range, then the columns and sort keys from the first match.
   */
  const scan = (symbol: string, from: number, to: number): void => {
    const time = base.bars.time;
    const length = base.length;
    const condition = values(program, program.condition, from, to);
    // Sort keys over the rest of the range, read per matching bar (computed at the first match).
    let keyValues: Float64Array[] | undefined;
    // Where bar t sits in the window: walked forward with t, no lookup per bar.
    let w = lowerBound(window, 0, window.length, Number(time[from]));
    // The matching bars (the condition is 1 or 0 at every bar from `from`). Searched up to `to`
    // only: the buffer past it holds another pass's or instrument's values, which the typed
    // array's own search went on reading when the range had no match.
    for (let t = nextMatch(condition, from, to); t < to; t = nextMatch(condition, t + 1, to)) {
      const bt = Number(time[t]);
      while (window[w]! < bt) w++;
      if (keyValues === undefined) {
        // Columns and sort keys over the rest of the range at once, then read per bar.
        for (const c of program.columns) values(program, c.slot, t, to);
        keyValues = sort.map((k) => values(program, k.slot, t, to));
      }
      matched++;
      const kept = perBar[w]!;
      if (limit === undefined) {
        kept.push(hitAt(symbol, t, bt, length));
        continue;
      }
      for (let k = 0; k < keys.length; k++) keys[k] = keyValues[k]![t]!;
      const ranks = firstKeys[w]!;
      const rank = keys.length > 0 ? rankOf(keys[0]!, sort[0]!.descending) : 0;
      // Most matches of a long window come after a full list's last row: one comparison each.
      if (kept.length === limit && rank > ranks[limit - 1]!) continue;
      // Where the row goes among those kept: after every row not after it in the query's order.
      let lo = 0;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const r = ranks[mid]!;
        const before = r < rank || (r === rank && order(program, kept[mid]!.keys, kept[mid]!.row.symbol, keys, symbol) <= 0);
        if (before) lo = mid + 1;
        else hi = mid;
      }
      // The bar's list is full and the row is not before its last: it does not enter.
      if (lo >= limit) continue;
      if (kept.length === limit) bytes -= kept.pop()!.bytes;
      kept.splice(lo, 0, hitAt(symbol, t, bt, length));
      ranks.copyWithin(lo + 1, lo, kept.length - 1);
      ranks[lo] = rank;
    }
  };

  const passes: WindowPasses = anchored ? windowPasses(program, window) : { starts: [], anchors: [] };
  const screenCarry: ScreenCarry | undefined = anchored?.carry?.store.screen(anchored.carry.key, program);
  program.carrying = screenCarry !== undefined;
  program.restored = false;

  /**
   * Computes every root of the program (condition, columns, sort keys) over base bars [from,
   * hi) of the pass narrowed to `anchors`: from the symbol's saved pass when `resume` and it
   * continues at `lo`, else afresh (also when the restored pass would need what it does not
   * hold). Computed here, the scan after it only reads.
   */
  const carried = (carry: ScreenCarry, symbol: string, anchors: readonly number[], resume: boolean, lo: number, from: number, hi: number): void => {
    if (resume && from === lo && restoreCarry(program, carry, symbol, anchors, lo)) {
      try {
        computeRoots(from, hi);
        program.restored = false;
        carry.restored++;
        return;
      } catch (error) {
        if (error !== CARRY_MISS) throw error;
        program.restored = false;
        program.epoch++;
        alignFrames(frames, hi - 1);
      }
    }
    // Afresh: no state of another symbol or pass may be taken for this one's.
    for (const slot of program.all) slot.state?.fill(Number.NaN);
    carry.fresh++;
    computeRoots(from, hi);
  };
  const computeRoots = (from: number, hi: number): void => {
    values(program, program.condition, from, hi);
    for (const c of program.columns) values(program, c.slot, from, hi);
    for (const k of sort) values(program, k.slot, from, hi);
  };
  for (const instrument of instruments) {
    if (slice.due()) {
      yield;
      slice.restart();
    }
    program.epoch++;
    if (!attachFrames(frames, instrument)) {
      noData++;
      continue;
    }
    const time = base.bars.time;
    const length = base.length;
    // The instrument's bars inside the window are a suffix of its bars (times increase, and
    // every time of the universe at or after the window's first is in the window).
    const first = firstAtOrAfterTime(time, 0, length, window.length > 0 ? window[0]! : Infinity, base.duration);
    // Bars, but none inside the window: nothing to evaluate, so no data for this screen.
    if (first === length) {
      noData++;
      continue;
    }
    if (!anchored) {
      // Window bars where every source has its minLookback, as a truncated run requires.
      let from = first;
      while (from < length && !alignFrames(frames, from)) from++;
      if (from === length) {
        shortHistory++;
        continue;
      }
      alignFrames(frames, length - 1);
      scan(instrument.symbol, from, length);
      continue;
    }
    // One pass per run of window bars that share their anchors.
    const symbol = instrument.symbol;
    const wholeTime = time;
    let evaluated = false;
    let short = false;
    let tracking = track?.has(symbol) === true;
    let t = first;
    let pass = 0;
    while (t < length) {
      // The window pass bar t belongs to, and the instrument's first bar of the next one: its
      // bars in the window are window times, so a pass is its bars between two pass starts.
      const bt = Number(wholeTime[t]);
      while (pass + 1 < passes.starts.length && passes.starts[pass + 1]! <= bt) pass++;
      const group = passes.anchors[pass]!;
      const end = pass + 1 < passes.starts.length ? firstAtOrAfterTime(wholeTime, t + 1, length, passes.starts[pass + 1]!, base.duration) : length;
      if (t > first) program.epoch++;
      for (let k = 0; k < frames.length; k++) frames[k]!.reattach();
      const off = narrowToAnchors(frames, group);
      const lo = t - off;
      const hi = end - off;
      let from = lo;
      while (from < hi && !alignFrames(frames, from)) from++;
      if (from < hi) {
        evaluated = true;
        if (!converged(frames)) short = true;
      }
      alignFrames(frames, hi - 1);
      // A carried pass: the symbol's saved one taken on from `lo` in steps when it continues
      // here (its first pass of the window), else this pass from its anchor; either way every
      // slot computed at every bar, so that the pass can be saved for the next bar.
      if (screenCarry !== undefined && from < hi) carried(screenCarry, symbol, group, t === first, lo, from, hi);
      if (from < hi) scan(symbol, from, hi);
      if (track !== undefined) {
        const condition = from < hi ? values(program, program.condition, from, hi) : undefined;
        const limited = program.limit !== undefined;
        for (let i = lo; i < hi; i++) {
          const matches = condition !== undefined && i >= from && condition[i] === 1;
          if (!tracking && matches) tracking = true;
          if (!tracking || (matches && !limited)) continue;
          const { row } = rowAt(program, symbol, i);
          tracked.push({ time: Number(base.bars.time[i]), symbol, columns: row.columns });
        }
      }
      if (screenCarry !== undefined && end === length) {
        // The instrument's last pass: kept for its next bar, or forgotten when it cannot be carried.
        if (from < hi) saveCarry(program, group, screenCarry, symbol);
        else screenCarry.forget(symbol);
      }
      t = end;
    }
    if (!evaluated) shortHistory++;
    else if (short) unconverged++;
  }
  if (screenCarry !== undefined) program.carrying = program.restored = false;
  // Sort and limit decided which rows match at each bar; they are listed by symbol.
  for (const kept of perBar) kept.sort((a, b) => bySymbol(a.row, b.row));
  return { window, perBar, instruments: instruments.length, noData, shortHistory, matched, tracked, ...(anchored ? { unconverged } : {}) };
}

/** The first bar in [from, to) where the condition holds, or `to`. */
function nextMatch(condition: Float64Array, from: number, to: number): number {
  let t = from;
  while (t < to && condition[t] !== 1) t++;
  return t;
}

/**
 * A first sort key as a number that orders like `order` does on that key alone: ascending keys
 * as they are, descending ones negated, NaN and ±Infinity after every finite key. Two rows whose
 * ranks differ are ordered by them; equal ranks are left to `order` (the next keys, the symbol).
 */
function rankOf(key: number, descending: boolean): number {
  if (key - key !== 0) return Infinity;
  return descending ? -key : key;
}

const HOUR = TIMEFRAME_MS.h1;

/** The anchored passes of a window: the window time each starts at, and its anchors (one per frame). */
interface WindowPasses {
  readonly starts: readonly number[];
  readonly anchors: readonly (readonly number[])[];
}

/**
 * The window's runs of bars that share their anchors, found once per history. An anchor is a
 * function of the bar's time, the timeframes and the fetch alone (anchor.ts), so every
 * instrument's passes start at the same window times; and anchors only move forward with
 * time, so two bars of an instrument share their anchors exactly when no pass starts between
 * them. (Asking per bar of every instrument was a third of a 10,000-instrument history.)
 */
function windowPasses(program: Program, window: readonly number[]): WindowPasses {
  const starts: number[] = [];
  const anchors: number[][] = [];
  // The anchors at the window time being looked at, updated in place.
  const current: number[] = [];
  for (const time of window) {
    if (anchorsAt(program.frames, program.market, program.baseTimeframe, time, current)) {
      starts.push(time);
      anchors.push(current.slice());
    }
  }
  return { starts, anchors };
}

/**
 * The last `bars` distinct base bar open times over the universe, oldest first. The window so
 * far is kept as an ascending list; each instrument's newest `bars` times are merged into it
 * from the newest back. Instruments usually share their times, so the common case is a
 * sequential comparison that finds nothing new, with no hashing and no allocation; for the
 * store's bars of an hour or less, two comparisons (see below).
 */
export function windowTimes(instruments: readonly Instrument[], base: Timeframe, bars: number): number[] {
  let merged: number[] = [];
  const duration = TIMEFRAME_MS[base];
  // Whether every instrument merged so far had the store's bars (strictly increasing, on the grid).
  let allTrusted = true;
  for (const instrument of instruments) {
    const series = instrument.bars[base];
    const time = series?.time;
    if (!time) continue;
    const n = time.length;
    const k = Math.min(n, bars);
    const m = merged.length;
    const trusted = isTrusted(series!);
    if (k <= m && trusted && allTrusted && duration <= HOUR) {
      // The store's bars of an hour or less lie on a grid of their duration, so two of them are
      // at least a duration apart. When the instrument's newest k span exactly k − 1 durations,
      // they are every grid point of that span, and so are the window's newest k with the same
      // ends (on the same grid, strictly increasing): the same times, without reading them all.
      const first = Number(time[n - k]);
      const last = Number(time[n - 1]);
      if (last === merged[m - 1] && first === merged[m - k] && last - first === (k - 1) * duration) continue;
    }
    allTrusted &&= trusted;
    if (k <= m) {
      // Nothing new when the instrument's newest times are the window's newest.
      let j = 1;
      while (j <= k && Number(time[n - j]) === merged[m - j]) j++;
      if (j > k) continue;
    }
    const out: number[] = [];
    let i = m - 1;
    let j = n - 1;
    const lo = n - k;
    // Merge from the newest back. Every step consumes at least one time, so times that are
    // not increasing (rejected later by the bar checks) cannot stall it.
    while (out.length < bars && (i >= 0 || j >= lo)) {
      if (j < lo) out.push(merged[i--]!);
      else if (i < 0) out.push(Number(time[j--]));
      else {
        const a = merged[i]!;
        const b = Number(time[j]);
        if (a > b) out.push(merged[i--]!);
        else {
          out.push(b);
          j--;
          if (a === b) i--;
        }
      }
    }
    merged = out.reverse();
  }
  return merged;
}

/** The horizons, in base bars, of the forward-return statistics. */
export const FORWARD_HORIZONS = [1, 5, 20] as const;

/**
 * `{ n, mean, median, hitRate }` of the returns in percent; with no return, n = 0 and the others
 * null. hitRate is the share (0..1) of returns above 0; an even count's median is the mean of the
 * middle two.
 */
export function forwardStats(returns: readonly number[]): ForwardStats {
  const n = returns.length;
  if (n === 0) return { n: 0, mean: null, median: null, hitRate: null };
  const sorted = [...returns].sort((a, b) => a - b);
  // Summed in ascending order with compensation: the mean of many small returns should not
  // depend on the order matches happened to come in.
  let sum = 0;
  let c = 0;
  let up = 0;
  for (const r of sorted) {
    const t = sum + r;
    c += Math.abs(sum) >= Math.abs(r) ? sum - t + r : r - t + sum;
    sum = t;
    if (r > 0) up++;
  }
  const mid = n >> 1;
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { n, mean: (sum + c) / n, median, hitRate: up / n };
}

/**
 * The close-to-close return in percent from base bar `index` to `k` bars later, or undefined
 * when the instrument has no bar k bars later or the return is not a finite number (a zero or
 * missing close).
 */
export function forwardReturn(close: ArrayLike<number>, index: number, length: number, k: number): number | undefined {
  if (index + k >= length) return undefined;
  const r = 100 * (Number(close[index + k]) / Number(close[index]) - 1);
  return Number.isFinite(r) ? r : undefined;
}

/** Assembles the public history result from one pass. */
export function historyResult(scan: HistoryScan): HistoryResult {
  const matches: HistoryMatch[] = [];
  const returns: Record<string, number[]> = Object.fromEntries(FORWARD_HORIZONS.map((k) => [String(k), []]));
  const symbols = new Set<string>();
  scan.perBar.forEach((hits, b) => {
    const time = scan.window[b]!;
    for (const hit of hits) {
      const { symbol, columns } = hit.row;
      matches.push({ time, symbol, columns });
      symbols.add(symbol);
      for (const k of FORWARD_HORIZONS) {
        const r = forwardReturn(hit.close, hit.index, hit.length, k);
        if (r !== undefined) returns[String(k)]!.push(r);
      }
    }
  });
  const last = scan.window[scan.window.length - 1];
  return {
    matches,
    stats: {
      bars: scan.window.length,
      matches: matches.length,
      symbolsMatched: symbols.size,
      forward: {
        "1": forwardStats(returns["1"]!),
        "5": forwardStats(returns["5"]!),
        "20": forwardStats(returns["20"]!),
      },
    },
    meta: {
      instruments: scan.instruments,
      matched: scan.matched,
      skipped: { shortHistory: scan.shortHistory, noData: scan.noData },
      asOf: last === undefined ? null : new Date(last).toISOString(),
      ...(scan.unconverged === undefined ? {} : { unconverged: scan.unconverged }),
    },
  };
}
