/**
 * When bars open and close (decisions §2, "Data" and "Sessions"): the one definition of a
 * period's start that derivation, `vwap`, the import checks and the synthetic universe use.
 *
 * - CRYPTO (and any market but FOREX) trades around the clock: periods are UTC-aligned, days
 *   open at 00:00 UTC and weeks on Monday 00:00 UTC.
 * - FOREX follows its session: trading runs from Sunday 17:00 to Friday 17:00 New York time,
 *   and its charts close the day there. A day is the 24 hours ending 17:00 America/New_York
 *   (22:00 UTC in winter, 21:00 UTC under US daylight saving); its bar's time is its open, 17:00
 *   the evening before. Bars between Friday 17:00 and Sunday 17:00 (broker stubs) belong to the
 *   day that closes next, Monday's, so a week has at most five daily bars. Weeks open Sunday
 *   17:00 and close Friday 17:00 New York; h4 bars open at 17:00, 21:00, 01:00, ... New York;
 *   h1 and finer are aligned to the hour (New York is a whole number of hours from UTC).
 *
 * A period has a start (the bar's time) and a range of open times it gathers, [from, to): for
 * every period but a FOREX Monday or week, `from` is the start. Monday's day gathers the weekend
 * stubs before its start, from Friday 17:00. Periods of one timeframe never overlap, and a
 * later time never belongs to an earlier period, so aggregating bars in time order is one pass.
 *
 * Daylight saving changes at 02:00 on a Sunday, inside the weekend: every FOREX trading day is
 * 24 hours long, and a FOREX week's trading span is five of them. Only h4 periods over the
 * changing night (weekend stubs alone trade then) are 3 or 5 hours long.
 */
import type { Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";
import { fromNewYorkWallClock, newYorkWallClock } from "./new-york.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/** Monday 1970-01-05 00:00 UTC (1970-01-01 was a Thursday): UTC weeks are counted from it. */
export const WEEK_ORIGIN = 4 * DAY;

/** How a market's days and weeks are cut: around the clock in UTC, or the FOREX session in New York. */
export type Session = "utc" | "forex";

/** The session a market trades: FOREX (any spelling) follows New York's 17:00 close; every other market is UTC. */
export function sessionOf(market: string): Session {
  return market.toUpperCase() === "FOREX" ? "forex" : "utc";
}

/** The open times a period gathers: [from, to); its bar's time is `start`. */
export interface PeriodRange {
  start: number;
  from: number;
  to: number;
}

/** `x mod m`, non-negative. */
function mod(x: number, m: number): number {
  const r = x % m;
  return r < 0 ? r + m : r;
}

/** Weekday of a day number (days since 1970-01-01): 0 Sunday … 6 Saturday. */
function weekday(dayNumber: number): number {
  return mod(dayNumber + 4, 7);
}

/** The UTC-aligned period holding `t`: days from midnight, weeks from Monday. */
function utcRange(t: number, tf: Timeframe): PeriodRange {
  const d = TIMEFRAME_MS[tf];
  const start = tf === "w" ? t - mod(t - WEEK_ORIGIN, d) : t - mod(t, d);
  return { start, from: start, to: start + d };
}

/** New York wall time of the 17:00 close that ends the FOREX day holding `t` (weekend stubs: Monday's). */
function forexDayClose(t: number): number {
  const wall = newYorkWallClock(t);
  // The first 17:00 strictly after the wall time: a bar opening at 17:00 starts the next day.
  let close = wall - mod(wall - 17 * HOUR, DAY) + DAY;
  const dow = weekday(Math.floor(close / DAY));
  if (dow === 6) close += 2 * DAY;
  else if (dow === 0) close += DAY;
  return close;
}

function forexRange(t: number, tf: Timeframe): PeriodRange {
  switch (tf) {
    case "m1":
    case "m5":
    case "m15":
    case "m30":
    case "h1":
      return utcRange(t, tf);
    case "h4": {
      const wall = newYorkWallClock(t);
      const open = wall - mod(wall - 17 * HOUR, 4 * HOUR);
      return { start: fromNewYorkWallClock(open), from: fromNewYorkWallClock(open), to: fromNewYorkWallClock(open + 4 * HOUR) };
    }
    case "d": {
      const close = forexDayClose(t);
      const start = fromNewYorkWallClock(close - DAY);
      // Monday's day gathers the weekend from Friday's close.
      const from = weekday(Math.floor(close / DAY)) === 1 ? fromNewYorkWallClock(close - 3 * DAY) : start;
      return { start, from, to: fromNewYorkWallClock(close) };
    }
    case "w": {
      const day = forexDayClose(t);
      const friday = day + (5 - weekday(Math.floor(day / DAY))) * DAY;
      return { start: fromNewYorkWallClock(friday - 5 * DAY), from: fromNewYorkWallClock(friday - WEEK), to: fromNewYorkWallClock(friday) };
    }
    default: {
      const never: never = tf;
      throw new Error(`internal: unknown timeframe '${String(never)}'`);
    }
  }
}

/** The `tf` period of `market` holding the open time `t`: its bar's time and the open times it gathers. */
export function periodRange(t: number, tf: Timeframe, market: string | Session): PeriodRange {
  const session = market === "utc" || market === "forex" ? market : sessionOf(market);
  return session === "forex" ? forexRange(t, tf) : utcRange(t, tf);
}

/** Open time of the `tf` bar of `market` that a bar opening at `t` belongs to. */
export function periodStart(t: number, tf: Timeframe, market: string | Session): number {
  return periodRange(t, tf, market).start;
}

/** True when `t` is the open time of a `tf` bar of `market` (the grid every imported bar must be on). */
export function isPeriodOpen(t: number, tf: Timeframe, market: string | Session): boolean {
  return Number.isFinite(t) && periodStart(t, tf, market) === t;
}

/** The rule of {@link isPeriodOpen} in words, for an import's message. */
export function periodRule(tf: Timeframe, market: string | Session): string {
  const session = market === "utc" || market === "forex" ? market : sessionOf(market);
  if (session === "forex") {
    if (tf === "d") return "FOREX days open at 17:00 New York, Sunday to Thursday";
    if (tf === "w") return "FOREX weeks open on Sunday at 17:00 New York";
    if (tf === "h4") return "FOREX h4 bars open at 17:00, 21:00, 01:00, 05:00, 09:00 and 13:00 New York";
  }
  return tf === "w" ? "weeks open on Monday 00:00 UTC" : `a multiple of ${tf} since the epoch`;
}
