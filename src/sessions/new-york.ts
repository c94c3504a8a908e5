/**
 * New York wall-clock time without a time-zone database: the FOREX session closes at 17:00
 * America/New_York, and this file knows when the United States switched to and from daylight
 * saving time (UTC−04:00 in summer, UTC−05:00 in winter). It is arithmetic, not `Intl`, because
 * derivation and `vwap` ask it for every bar, and it must give the same answer in every browser.
 *
 * The US rules since 1967 (the Uniform Time Act), switching at 02:00 local time on a Sunday:
 * - 1967–1973 and 1976–1986: last Sunday of April to last Sunday of October;
 * - 1974: January 6 to October 27, and 1975: February 23 to October 26 (the energy crisis);
 * - 1987–2006: first Sunday of April to last Sunday of October;
 * - from 2007: second Sunday of March to first Sunday of November.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Hours New York is behind UTC in winter (EST) and in summer (EDT). */
const EST = 5 * HOUR;
const EDT = 4 * HOUR;

/** Day number (days since 1970-01-01) of the `n`-th Sunday of a month (n = -1: the last one). */
function sunday(year: number, month: number, n: number): number {
  if (n > 0) {
    const first = Math.floor(Date.UTC(year, month, 1) / DAY);
    // 1970-01-01 was a Thursday: weekday 0 = Sunday is (day + 4) mod 7.
    const toSunday = (7 - ((first + 4) % 7)) % 7;
    return first + toSunday + 7 * (n - 1);
  }
  const last = Math.floor(Date.UTC(year, month + 1, 1) / DAY) - 1;
  return last - ((last + 4) % 7);
}

/** Start and end (UTC ms) of daylight saving time in `year`: [start, end). */
function dstSpan(year: number): readonly [number, number] {
  let start: number;
  let end: number;
  if (year >= 2007) {
    start = sunday(year, 2, 2);
    end = sunday(year, 10, 1);
  } else if (year >= 1987) {
    start = sunday(year, 3, 1);
    end = sunday(year, 9, -1);
  } else if (year === 1974) {
    start = Math.floor(Date.UTC(1974, 0, 6) / DAY);
    end = sunday(1974, 9, -1);
  } else if (year === 1975) {
    start = Math.floor(Date.UTC(1975, 1, 23) / DAY);
    end = sunday(1975, 9, -1);
  } else {
    start = sunday(year, 3, -1);
    end = sunday(year, 9, -1);
  }
  // 02:00 EST is 07:00 UTC; 02:00 EDT is 06:00 UTC.
  return [start * DAY + 2 * HOUR + EST, end * DAY + 2 * HOUR + EDT];
}

const FIRST_YEAR = 1900;
const LAST_YEAR = 2400;
/** DST spans per year, computed once per year on first use. */
const spans = new Float64Array(2 * (LAST_YEAR - FIRST_YEAR + 1)).fill(Number.NaN);

/** The UTC year of `utc` (ms), clamped to the years the table holds. */
function yearOf(utc: number): number {
  // 365.2425 days per Gregorian year; corrected by one when near a year boundary.
  let year = 1970 + Math.floor(utc / (365.2425 * DAY));
  if (utc < Date.UTC(year, 0, 1)) year--;
  else if (utc >= Date.UTC(year + 1, 0, 1)) year++;
  return Math.min(LAST_YEAR, Math.max(FIRST_YEAR, year));
}

/** True when `utc` (ms) falls in US daylight saving time. */
export function isNewYorkDaylight(utc: number): boolean {
  const year = yearOf(utc);
  const at = 2 * (year - FIRST_YEAR);
  if (Number.isNaN(spans[at])) {
    const [start, end] = dstSpan(year);
    spans[at] = start;
    spans[at + 1] = end;
  }
  return utc >= spans[at]! && utc < spans[at + 1]!;
}

/** New York's offset from UTC at `utc`, in ms: −4 h under daylight saving time, −5 h otherwise. */
export function newYorkOffset(utc: number): number {
  return isNewYorkDaylight(utc) ? -EDT : -EST;
}

/** New York wall-clock time at `utc`, written as if it were UTC (ms). */
export function newYorkWallClock(utc: number): number {
  return utc + newYorkOffset(utc);
}

/**
 * The UTC instant of a New York wall-clock time (ms, written as if UTC). A time the spring
 * change skips (02:xx) is read as standard time (so 02:30 is 03:30 EDT); a time the autumn
 * change repeats (01:xx) is the first, daylight, one.
 */
export function fromNewYorkWallClock(wall: number): number {
  const daylight = wall + EDT;
  if (isNewYorkDaylight(daylight)) return daylight;
  return wall + EST;
}
