/**
 * Reading one field of a line: numbers as written in every format (a decimal, never hex,
 * `Infinity` or an empty field), times as milliseconds or ISO 8601, and wall-clock times in a
 * source time zone. Shared by the formats (`formats.ts`) and the xql CSV (`csv.ts`).
 */

import { XqlDataError } from "../errors.js";

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const INTEGER = /^-?\d+$/;

/** Exact powers of ten a double holds (10^0 … 10^22): the divisors of the fast path below. */
const POWERS = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The value of a decimal field (`12`, `-0.5`, `.5`, `1e-3`, `1.`), or NaN for anything else
 * (hex, binary, octal, `Infinity`, an empty field — what `Number` accepts and a bar file never
 * means). Plain decimals of at most 15 significant digits are read digit by digit: their digits
 * as an integer and the power of ten are both exact doubles, so one division gives the correctly
 * rounded value, the same as `Number` (Clinger's fast path); anything else goes to `Number`.
 */
export function decimal(text: string): number {
  return decimalIn(text, 0, text.length);
}

/** {@link decimal} of `text[start, end)`, without cutting the field out of its line. */
export function decimalIn(text: string, start: number, end: number): number {
  if (end <= start) return Number.NaN;
  let i = start;
  let c = text.charCodeAt(i);
  let negative = false;
  if (c === 45 || c === 43) {
    negative = c === 45;
    if (++i === end) return Number.NaN;
  }
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let seenDigit = false;
  let point = false;
  for (; i < end; i++) {
    c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      seenDigit = true;
      if (mantissa === 0 && c === 48) {
        if (point) scale++;
        continue;
      }
      if (++digits > 15) return slow(text.slice(start, end));
      mantissa = mantissa * 10 + (c - 48);
      if (point) scale++;
    } else if (c === 46 && !point) point = true;
    else return slow(text.slice(start, end));
  }
  if (!seenDigit) return Number.NaN;
  if (scale > 22) return slow(text.slice(start, end));
  const value = mantissa / POWERS[scale]!;
  return negative ? -value : value;
}

/** The non-negative integer written in `text[start, end)` (digits only), or NaN; exact up to 2^53. */
export function digitsIn(text: string, start: number, end: number): number {
  if (end <= start) return Number.NaN;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return Number.NaN;
    value = value * 10 + (c - 48);
  }
  return value;
}

/** `decimal` for what the fast path leaves: exponents, long mantissas, and everything that is no decimal. */
function slow(text: string): number {
  const c0 = text.charCodeAt(0);
  // digits, '+', '-', '.'
  if (!((c0 >= 48 && c0 <= 57) || c0 === 43 || c0 === 45 || c0 === 46)) return Number.NaN;
  if (c0 === 48 && text.length > 1) {
    const c1 = text.charCodeAt(1) | 0x20;
    if (c1 === 0x78 || c1 === 0x62 || c1 === 0x6f) return Number.NaN; // 0x 0b 0o
  }
  if (/[^0-9eE+\-.]/.test(text)) return Number.NaN;
  const value = Number(text);
  return Number.isFinite(value) ? value : Number.NaN;
}

/** ms since the epoch of a time field (ms, or ISO 8601 UTC unless an offset is written), or a reason it is not one. */
export function parseTime(text: string): number | string {
  if (INTEGER.test(text)) {
    const ms = Number(text);
    return Number.isSafeInteger(ms) ? ms : `time '${text}' is out of range`;
  }
  const m = ISO.exec(text);
  if (!m) return `time '${text}' is neither milliseconds since the epoch nor ISO 8601`;
  const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "0", zone] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, "0")));
  const check = new Date(local);
  // Date.UTC rolls 2024-02-30 over into March; a real calendar date survives the round trip.
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCHours() !== Number(h) ||
    check.getUTCMinutes() !== Number(mi) ||
    check.getUTCSeconds() !== Number(s)
  ) {
    return `time '${text}' is not a valid date and time`;
  }
  if (zone === undefined || zone === "Z") return local;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return local - sign * offsetMinutes * 60_000;
}

/**
 * A converter from a wall-clock time in the zone (as if UTC, in ms) to UTC ms. Fixed offsets
 * and `EST`/`UTC` are exact; an IANA zone follows its daylight-saving rules via Intl.
 */
export function zoneConverter(tz: string): { convert: (local: number) => number; label: string } {
  const name = tz.trim();
  if (/^(utc|gmt|z)$/i.test(name)) return { convert: (t) => t, label: "UTC" };
  if (/^est$/i.test(name)) return { convert: (t) => t + 5 * 3_600_000, label: "EST (UTC−05:00, no daylight saving)" };
  const fixed = /^(?:utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(name);
  if (fixed) {
    const minutes = (Number(fixed[2]) * 60 + Number(fixed[3] ?? 0)) * (fixed[1] === "-" ? -1 : 1);
    if (Math.abs(minutes) > 14 * 60) throw new XqlDataError("import-time-zone", { tz, fault: "out-of-range" });
    return { convert: (t) => t - minutes * 60_000, label: `UTC${fixed[1]}${fixed[2]!.padStart(2, "0")}:${fixed[3] ?? "00"}` };
  }
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  } catch {
    throw new XqlDataError("import-time-zone", { tz, fault: "unknown" });
  }
  // Offsets change a few times a year, always on a quarter hour: remember each quarter hour's.
  const QUARTER = 900_000;
  const offsets = new Map<number, number>();
  const offsetAt = (utc: number): number => {
    const slot = Math.floor(utc / QUARTER);
    let offset = offsets.get(slot);
    if (offset === undefined) {
      const at = slot * QUARTER;
      const parts = Object.fromEntries(format.formatToParts(new Date(at)).map((p) => [p.type, p.value]));
      const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
      offset = wall - at;
      if (offsets.size > 100_000) offsets.clear();
      offsets.set(slot, offset);
    }
    return offset;
  };
  return {
    convert: (local) => {
      let utc = local - offsetAt(local);
      utc = local - offsetAt(utc);
      return utc;
    },
    label: name,
  };
}
