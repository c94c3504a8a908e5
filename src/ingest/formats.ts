/**
 * Bar file formats `xql data import` reads, each detected from the file's first line (or
 * chosen with `--columns` for a generic CSV), all checked by the same rules as our own CSV
 * (finite numbers, consistent OHLC, volume ≥ 0, times on bar boundaries, no duplicates),
 * with the first bad line named and nothing written:
 *
 * - `xql`: `symbol,time,open,high,low,close,volume` (header optional; ms or ISO 8601).
 * - `binance`: kline dumps of data.binance.vision, no header, 12 columns; open time in ms,
 *   or in µs (dumps from 2025 on); the symbol from the file name `BTCUSDT-1h-2026-01.csv`
 *   unless `--symbol` is given, and the timeframe from it unless `--timeframe` is given.
 * - `metatrader`: MetaTrader history exports `<DATE> <TIME> <OPEN> <HIGH> <LOW> <CLOSE>
 *   <TICKVOL> <VOL> <SPREAD>` (tab or comma; header optional; `2026.01.02` dates, `00:00[:00]`
 *   times), UTC unless `--tz` says otherwise; volume is the real volume when non-zero, else
 *   the tick volume.
 * - `histdata`: HistData.com generic ASCII `20260102 000000;open;high;low;close;volume`,
 *   in the source's time zone (`--tz`, default EST without daylight saving: UTC−05:00).
 * - `generic`: any delimited file with `--columns time,open,high,low,close,volume` (names
 *   from `symbol time open high low close volume`, `-` to skip a column) and
 *   `--time-format iso|s|ms|us`; a header line is skipped when its time does not parse.
 */
import { basename } from "node:path";
import type { Timeframe } from "../types.js";
import { CsvImportError, parseTime } from "./csv.js";

/** The formats `xql data import` reads. */
export const IMPORT_FORMATS = ["xql", "binance", "metatrader", "histdata", "generic"] as const;
/** One of {@link IMPORT_FORMATS}. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One decoded line: the symbol (when the format carries one), the open time in UTC ms, and OHLCV. */
export interface DecodedRow {
  symbol?: string;
  time: number;
  values: [number, number, number, number, number];
}

/** Turns one non-empty line into a row, `null` for a line to skip (a header), or throws a reason string. */
export type LineDecoder = (line: string, lineNumber: number) => DecodedRow | null;

/** How times of the generic format are written. */
export type TimeFormat = "iso" | "s" | "ms" | "us";

/** Options that shape decoding. */
export interface FormatOptions {
  /** Force a format instead of detecting it. */
  format?: ImportFormat;
  /** Generic CSV: the column names in order (`-` skips a column). Implies `generic`. */
  columns?: readonly string[];
  /** Generic CSV: how times are written. Default `iso` (which also takes plain ms). */
  timeFormat?: TimeFormat;
  /** The source time zone: `UTC`, `EST` (fixed −05:00), `±HH:MM`, or an IANA name such as `Europe/Athens`. */
  tz?: string;
}

/** What detection chose, with a line saying why, and what the file name tells. */
export interface DetectedFormat {
  format: ImportFormat;
  decode: LineDecoder;
  /** True when rows carry their own symbol. */
  hasSymbol: boolean;
  /** A sentence for the user: which format was taken and how times are read. */
  description: string;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const GENERIC_NAMES = ["symbol", "time", "open", "high", "low", "close", "volume", "-"] as const;

function num(text: string | undefined, name: string): number {
  const t = (text ?? "").trim();
  const value = DECIMAL.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(value)) throw `${name} '${t}' is not a finite number`;
  return value;
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
    if (Math.abs(minutes) > 14 * 60) throw new Error(`Time zone offset '${tz}' is out of range`);
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
    throw new Error(`Unknown time zone '${tz}': use UTC, EST, an offset such as +02:00, or an IANA name such as Europe/Athens`);
  }
  const offsetAt = (utc: number): number => {
    const parts = Object.fromEntries(format.formatToParts(new Date(utc)).map((p) => [p.type, p.value]));
    const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
    return wall - (utc - (utc % 1000));
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

/** The fields of a line split on `delimiter` (no quoting: these formats never quote). */
function split(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((f) => f.trim());
}

function delimiterOf(line: string): string {
  const counts = [",", ";", "\t"].map((d) => [d, line.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ",";
}

/** Binance open time: 13 digits are ms, 16 are µs (dumps from 2025 on). */
function binanceTime(text: string): number {
  if (!/^\d+$/.test(text)) throw `open time '${text}' is not an integer`;
  const n = Number(text);
  if (text.length >= 15) return Math.floor(n / 1000);
  return n;
}

function binanceDecoder(): LineDecoder {
  return (line) => {
    const f = split(line, ",");
    if (f.length !== 12) throw `expected 12 fields of a Binance kline, found ${f.length}`;
    if (!/^\d+$/.test(f[0]!)) {
      if (/open_time/i.test(f[0]!)) return null; // some dumps carry a header
      throw `open time '${f[0]}' is not an integer`;
    }
    return { time: binanceTime(f[0]!), values: [num(f[1], "open"), num(f[2], "high"), num(f[3], "low"), num(f[4], "close"), num(f[5], "volume")] };
  };
}

const MT_DATE = /^(\d{4})\.(\d{2})\.(\d{2})$/;
const MT_TIME = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

function wallTime(y: string, mo: string, d: string, h: string, mi: string, s: string, text: string): number {
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const c = new Date(t);
  if (c.getUTCFullYear() !== Number(y) || c.getUTCMonth() !== Number(mo) - 1 || c.getUTCDate() !== Number(d) || c.getUTCHours() !== Number(h) || c.getUTCMinutes() !== Number(mi) || c.getUTCSeconds() !== Number(s)) {
    throw `time '${text}' is not a valid date and time`;
  }
  return t;
}

function metatraderDecoder(delimiter: string, convert: (t: number) => number): LineDecoder {
  return (line) => {
    const f = split(line, delimiter);
    if (/^<?date>?$/i.test(f[0]!)) return null;
    const date = MT_DATE.exec(f[0]!);
    if (!date) throw `date '${f[0]}' is not YYYY.MM.DD`;
    // Daily and weekly exports may carry no time column: then the second field is the open.
    const hasTime = MT_TIME.test(f[1] ?? "");
    const time = hasTime ? MT_TIME.exec(f[1]!)! : ["", "00", "00", "00"];
    const rest = f.slice(hasTime ? 2 : 1);
    if (rest.length < 5) throw `expected at least date, time, open, high, low, close and volume, found ${f.length} fields`;
    const tickVolume = num(rest[4], "tick volume");
    const realVolume = rest[5] !== undefined && rest[5] !== "" ? num(rest[5], "volume") : 0;
    const local = wallTime(date[1]!, date[2]!, date[3]!, time[1]!, time[2]!, time[3] ?? "00", `${f[0]} ${f[1] ?? ""}`.trim());
    return {
      time: convert(local),
      values: [num(rest[0], "open"), num(rest[1], "high"), num(rest[2], "low"), num(rest[3], "close"), realVolume > 0 ? realVolume : tickVolume],
    };
  };
}

const HD_TIME = /^(\d{4})(\d{2})(\d{2}) (\d{2})(\d{2})(\d{2})$/;

function histdataDecoder(convert: (t: number) => number): LineDecoder {
  return (line) => {
    const f = split(line, ";");
    if (f.length !== 6) throw `expected 6 fields 'YYYYMMDD HHMMSS;open;high;low;close;volume', found ${f.length}`;
    const m = HD_TIME.exec(f[0]!);
    if (!m) throw `time '${f[0]}' is not 'YYYYMMDD HHMMSS'`;
    const local = wallTime(m[1]!, m[2]!, m[3]!, m[4]!, m[5]!, m[6]!, f[0]!);
    return { time: convert(local), values: [num(f[1], "open"), num(f[2], "high"), num(f[3], "low"), num(f[4], "close"), num(f[5], "volume")] };
  };
}

function genericTime(text: string, format: TimeFormat, convert: (t: number) => number): number {
  if (format === "iso") {
    const t = parseTime(text);
    if (typeof t === "string") throw t;
    // A written offset or Z wins; a bare wall time is in the source zone.
    return /(?:Z|[+-]\d{2}:?\d{2})$/.test(text) || /^-?\d+$/.test(text) ? t : convert(t);
  }
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw `time '${text}' is not a number of ${format === "s" ? "seconds" : format === "ms" ? "milliseconds" : "microseconds"}`;
  const n = Number(text);
  const ms = format === "s" ? n * 1000 : format === "ms" ? n : n / 1000;
  if (!Number.isSafeInteger(Math.round(ms))) throw `time '${text}' is out of range`;
  return Math.round(ms);
}

function genericDecoder(columns: readonly string[], delimiter: string, timeFormat: TimeFormat, convert: (t: number) => number): LineDecoder {
  const at = (name: string): number => columns.indexOf(name);
  const index = { symbol: at("symbol"), time: at("time"), open: at("open"), high: at("high"), low: at("low"), close: at("close"), volume: at("volume") };
  let seenRow = false;
  return (line) => {
    const f = split(line, delimiter);
    if (f.length < columns.length) throw `expected ${columns.length} fields (${columns.join(",")}), found ${f.length}`;
    let time: number;
    try {
      time = genericTime(f[index.time]!, timeFormat, convert);
    } catch (reason) {
      if (!seenRow) {
        seenRow = true;
        return null; // a header line
      }
      throw reason;
    }
    seenRow = true;
    const volume = index.volume >= 0 ? num(f[index.volume], "volume") : 0;
    return {
      symbol: index.symbol >= 0 ? f[index.symbol] : undefined,
      time,
      values: [num(f[index.open], "open"), num(f[index.high], "high"), num(f[index.low], "low"), num(f[index.close], "close"), volume],
    };
  };
}

/** Checks `--columns`: known names, each once, with time and OHLC present. */
export function checkColumns(columns: readonly string[]): void {
  for (const name of columns) {
    if (!(GENERIC_NAMES as readonly string[]).includes(name)) {
      throw new Error(`Unknown column '${name}' in --columns: use ${GENERIC_NAMES.join(" ")}`);
    }
  }
  for (const name of ["time", "open", "high", "low", "close"]) {
    if (!columns.includes(name)) throw new Error(`--columns needs a '${name}' column`);
  }
  const named = columns.filter((c) => c !== "-");
  if (new Set(named).size !== named.length) throw new Error("--columns names a column twice");
}

/**
 * Picks the format from the first non-empty line (or the options), and says which it took.
 *
 * @throws CsvImportError at that line when no format fits.
 */
export function detectFormat(firstLine: string, lineNumber: number, options: FormatOptions = {}): DetectedFormat {
  const line = firstLine.replace(/^\uFEFF/, "");
  const delimiter = delimiterOf(line);
  const fields = split(line, delimiter);
  let format = options.format;
  if (options.columns) format = "generic";
  if (!format) {
    if (/^<date>$/i.test(fields[0] ?? "") || MT_DATE.test(fields[0] ?? "")) format = "metatrader";
    else if (delimiter === ";" && HD_TIME.test(fields[0] ?? "")) format = "histdata";
    else if (delimiter === "," && fields.length === 12 && (/^\d{13,16}$/.test(fields[0]!) || /open_time/i.test(fields[0]!))) format = "binance";
    else if (fields[0]?.toLowerCase() === "symbol" || (fields.length === 7 && delimiter === ",")) format = "xql";
    else {
      throw new CsvImportError(
        lineNumber,
        `cannot tell the format from '${line.slice(0, 80)}': expected our CSV (symbol,time,open,high,low,close,volume), a Binance kline dump, a MetaTrader export or HistData ASCII; for another layout give --columns and --time-format`,
      );
    }
  }
  switch (format) {
    case "xql":
      return { format, decode: () => null, hasSymbol: true, description: "xql CSV (symbol,time,open,high,low,close,volume; times in ms or ISO 8601, UTC unless written)" };
    case "binance":
      return { format, decode: binanceDecoder(), hasSymbol: false, description: "Binance kline dump (12 columns, open time in ms or µs, UTC)" };
    case "metatrader": {
      const zone = zoneConverter(options.tz ?? "UTC");
      return {
        format,
        decode: metatraderDecoder(delimiter === ";" ? "," : delimiter, zone.convert),
        hasSymbol: false,
        description: `MetaTrader export (${delimiter === "\t" ? "tab" : "comma"}-separated, YYYY.MM.DD dates, times in ${zone.label})`,
      };
    }
    case "histdata": {
      const zone = zoneConverter(options.tz ?? "EST");
      return { format, decode: histdataDecoder(zone.convert), hasSymbol: false, description: `HistData ASCII (YYYYMMDD HHMMSS;o;h;l;c;v, times in ${zone.label})` };
    }
    case "generic": {
      const columns = options.columns;
      if (!columns) throw new Error("The generic format needs --columns");
      checkColumns(columns);
      const zone = zoneConverter(options.tz ?? "UTC");
      const timeFormat = options.timeFormat ?? "iso";
      return {
        format,
        decode: genericDecoder(columns, delimiter, timeFormat, zone.convert),
        hasSymbol: columns.includes("symbol"),
        description: `generic CSV (columns ${columns.join(",")}, ${delimiter === "\t" ? "tab" : `'${delimiter}'`}-separated, times as ${timeFormat}${timeFormat === "iso" ? ` in ${zone.label} unless written` : ""})`,
      };
    }
    default:
      throw new Error(`Unknown format '${String(format)}': use one of ${IMPORT_FORMATS.join(" ")}`);
  }
}

const BINANCE_INTERVALS: Record<string, Timeframe> = { "1m": "m1", "5m": "m5", "15m": "m15", "30m": "m30", "1h": "h1", "4h": "h4", "1d": "d", "1w": "w" };

/** What a file name tells: Binance `BTCUSDT-1h-2026-01.csv[.gz]`, HistData `DAT_ASCII_EURUSD_M1_2026.csv`. */
export function hintsFromFileName(file: string): { symbol?: string; timeframe?: Timeframe } {
  const name = basename(file);
  const binance = /^([A-Z0-9]{2,32})-(1m|5m|15m|30m|1h|4h|1d|1w)-\d{4}-\d{2}(?:-\d{2})?\.csv(?:\.gz)?$/.exec(name);
  if (binance) return { symbol: binance[1], timeframe: BINANCE_INTERVALS[binance[2]!] };
  const histdata = /^DAT_ASCII_([A-Z0-9]{2,32})_M1_/i.exec(name);
  if (histdata) return { symbol: histdata[1]!.toUpperCase(), timeframe: "m1" };
  return {};
}
