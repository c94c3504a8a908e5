/**
 * Derived timeframes (decisions §2 Data). For a symbol with bars imported at timeframe f,
 * every coarser timeframe not imported itself is served derived from the finest imported
 * one: open of the first bar of the period, high max, low min, close of the last, volume
 * summed; days open at 00:00 UTC, weeks on Monday 00:00 UTC. A period without finer bars has
 * no derived bar, and the latest derived bar holds whatever finer bars exist (in progress
 * until its period ends; the evaluator's closed-bar rule ignores it as a prefix).
 *
 * Derivation is done at write time, so reads cost the same as for imported bars. This
 * module is the backend-independent part: where each period starts, aggregation, and which
 * periods a write touches ({@link planDerivation}); the stores execute the plan inside the
 * write's transaction.
 */
import type { Bars, Timeframe } from "../types.js";
import { TIMEFRAMES, TIMEFRAME_MS } from "../types.js";

/** A span wider than any bar time (2^53 ms): a "full" rebuild deletes and reads [-FULL_SPAN, FULL_SPAN). */
export const FULL_SPAN = 2 ** 53;

/** Monday 1970-01-05 00:00 UTC in ms: weekly periods are counted from it. */
export const WEEK_ORIGIN = 4 * 86_400_000;

/** Open time of the `tf` period containing `t`: UTC-aligned, weeks from Monday 00:00 UTC. */
export function periodStart(t: number, tf: Timeframe): number {
  const d = TIMEFRAME_MS[tf];
  const origin = tf === "w" ? WEEK_ORIGIN : 0;
  const r = (t - origin) % d;
  return t - (r < 0 ? r + d : r);
}

/**
 * Aggregates bars (oldest first, strictly increasing times) into `tf` periods. Plain arrays
 * in, Float64Array columns out.
 */
export function aggregateBars(fine: Bars, tf: Timeframe): Bars {
  const n = fine.time.length;
  const time: number[] = [];
  const open: number[] = [];
  const high: number[] = [];
  const low: number[] = [];
  const close: number[] = [];
  const volume: number[] = [];
  let current = Number.NaN;
  for (let i = 0; i < n; i++) {
    const start = periodStart(fine.time[i]!, tf);
    if (start !== current) {
      current = start;
      time.push(start);
      open.push(fine.open[i]!);
      high.push(fine.high[i]!);
      low.push(fine.low[i]!);
      close.push(fine.close[i]!);
      volume.push(fine.volume[i]!);
      continue;
    }
    const k = time.length - 1;
    if (fine.high[i]! > high[k]!) high[k] = fine.high[i]!;
    if (fine.low[i]! < low[k]!) low[k] = fine.low[i]!;
    close[k] = fine.close[i]!;
    volume[k] = volume[k]! + fine.volume[i]!;
  }
  return {
    time: Float64Array.from(time),
    open: Float64Array.from(open),
    high: Float64Array.from(high),
    low: Float64Array.from(low),
    close: Float64Array.from(close),
    volume: Float64Array.from(volume),
  };
}

/** What one symbol held before a write: per timeframe, whether its bars are derived. */
export type SeriesState = ReadonlyMap<Timeframe, { derived: boolean }>;

/** The span of bar times one write put at one timeframe for one symbol (`full`: the whole series was replaced). */
export interface WrittenSpan {
  from: number;
  to: number;
  full: boolean;
}

/** One derivation step: rebuild `coarse` from `fine` over [from, to) (open times), or wholly. */
export interface DeriveJob {
  fine: Timeframe;
  coarse: Timeframe;
  /** Rebuild every bar of `coarse` from every bar of `fine` (the finest imported timeframe changed, or was replaced). */
  full: boolean;
  /** First period start touched (when not full). */
  from: number;
  /** End (exclusive) of the last period touched (when not full). */
  to: number;
}

/** The finest timeframe imported (not derived) in `state`, or undefined. */
export function finestImported(state: SeriesState): Timeframe | undefined {
  return TIMEFRAMES.find((tf) => state.get(tf)?.derived === false);
}

/**
 * Which coarser timeframes a write must rebuild, given what the symbol held before
 * (`before`) and after the write's bars are in (`after`, where every written timeframe is
 * imported). Only periods the write touched are rebuilt, unless the finest imported
 * timeframe changed (a finer import, or a replace of it): then every derived timeframe is
 * rebuilt from the new finest. Derived timeframes that are now imported are not derived.
 */
export function planDerivation(
  before: SeriesState,
  after: SeriesState,
  written: ReadonlyMap<Timeframe, WrittenSpan>,
): DeriveJob[] {
  const fine = finestImported(after);
  if (fine === undefined) return [];
  const span = written.get(fine);
  const changed = finestImported(before) !== fine;
  if (!span && !changed) return [];
  const jobs: DeriveJob[] = [];
  for (const coarse of TIMEFRAMES.slice(TIMEFRAMES.indexOf(fine) + 1)) {
    if (after.get(coarse)?.derived === false) continue;
    if (changed || !span || span.full) {
      jobs.push({ fine, coarse, full: true, from: 0, to: 0 });
    } else {
      jobs.push({
        fine,
        coarse,
        full: false,
        from: periodStart(span.from, coarse),
        to: periodStart(span.to, coarse) + TIMEFRAME_MS[coarse],
      });
    }
  }
  return jobs;
}

/** The SQL expression of the open time of the `tf` period of the integer column `column` (SQLite and PostgreSQL). */
export function periodStartSql(column: string, tf: Timeframe): string {
  const d = TIMEFRAME_MS[tf];
  const shifted = tf === "w" ? `(${column} - ${WEEK_ORIGIN})` : column;
  return `(${column} - (((${shifted} % ${d}) + ${d}) % ${d}))`;
}

/** One symbol a write touches: what it held before, and the spans written per timeframe. */
export interface Touched {
  market: string;
  symbol: string;
  before: SeriesState;
  written: Map<Timeframe, WrittenSpan>;
}

/** Widens the span written at `timeframe` by the times of one batch. */
export function recordSpan(written: Map<Timeframe, WrittenSpan>, timeframe: Timeframe, time: ArrayLike<number>, full: boolean): void {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < time.length; i++) {
    const t = time[i]!;
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  const held = written.get(timeframe);
  if (!held && time.length === 0 && !full) return;
  written.set(timeframe, {
    from: Math.min(lo, held?.from ?? Infinity),
    to: Math.max(hi, held?.to ?? -Infinity),
    full: full || (held?.full ?? false),
  });
}

