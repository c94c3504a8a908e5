/**
 * Bar file formats `xql data import` reads, each detected from the file's first line (or
 * chosen with `--columns` for a generic CSV), all checked by the same rules as our own CSV
 * (finite numbers, consistent OHLC, volume ≥ 0, times on the timeframe's grid, no
 * duplicates), with the first bad line named and nothing written:
 *
 * - `xql`: `symbol,time,open,high,low,close,volume` (header optional; ms or ISO 8601).
 * - `binance`: kline dumps of data.binance.vision, no header, 12 columns; open time in ms,
 *   or in µs (dumps from 2025 on); the symbol from the file name (`BTCUSDT-1h-2026-01.csv`,
 *   `BTCUSDT-1m-2025.csv`, `BTCUSDT-1m-2025-03-01.csv`) unless `--symbol` is given, and the
 *   timeframe from it unless `--timeframe` is given.
 * - `metatrader`: MetaTrader history exports `<DATE> <TIME> <OPEN> <HIGH> <LOW> <CLOSE>
 *   <TICKVOL> <VOL> <SPREAD>` (tab or comma; header optional; `2026.01.02` dates, `00:00[:00]`
 *   times), UTC unless `--tz` says otherwise; volume is the real volume when non-zero, else
 *   the tick volume.
 * - `histdata`: HistData.com generic ASCII `20260102 000000;open;high;low;close;volume`,
 *   in the source's time zone (`--tz`, default EST without daylight saving: UTC−05:00).
 * - `generic`: any delimited file with `--columns time,open,high,low,close,volume` (names
 *   from `symbol time open high low close volume`, `-` to skip a column) and
 *   `--time-format iso|s|ms|us`; a header line is skipped when its time does not parse.
 *
 * A time is taken exactly as written: a microsecond or a fraction of a second that is not a
 * whole millisecond stays fractional and fails the grid check, in every format alike.
 */
import { basename } from "node:path";
import type { Timeframe } from "../types.js";
import { BAR_COLUMNS } from "../types.js";
import { XqlDataError } from "../errors.js";
import { CsvImportError, LineError } from "./errors.js";
import { decimalIn, digitsIn, parseTime, zoneConverter } from "./fields.js";

/** The formats `xql data import` reads. */
export const IMPORT_FORMATS = ["xql", "binance", "metatrader", "histdata", "generic"] as const;
/** One of {@link IMPORT_FORMATS}. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The columns of our own CSV, in order. */
export const CSV_COLUMNS = ["symbol", ...BAR_COLUMNS] as const;

/**
 * One decoded line, filled in place by a decoder: the symbol (when the format carries one),
 * the open time in UTC ms and the time as written (for messages), and OHLCV with their fields
 * as written.
 */
export interface DecodedRow {
  symbol: string | undefined;
  time: number;
  timeText: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /**
   * The line the values were read from, and where open, high, low, close, volume and the time
   * are in it (start, end at 2k and 2k + 1; a start of −1: not written, or for the time: see
   * `timeText`). Fields are cut out of the line only for a message.
   */
  line: string;
  at: Int32Array;
}

/** The time of `row` as written in its line, for a message. */
export function timeTextOf(row: DecodedRow): string {
  return row.at[10]! >= 0 ? row.line.slice(row.at[10]!, row.at[11]!) : row.timeText;
}

/** A new row for a parser to fill line after line. */
export function newRow(): DecodedRow {
  return { symbol: undefined, time: 0, timeText: "", open: 0, high: 0, low: 0, close: 0, volume: 0, line: "", at: new Int32Array(12) };
}

/** Value `k` (0 open … 4 volume) of `row` as written in its line, for a message. */
export function valueText(row: DecodedRow, k: number): string {
  const start = row.at[2 * k]!;
  return start < 0 ? "0" : row.line.slice(start, row.at[2 * k + 1]!);
}

/** Fills `row` from one non-empty line; false for a line to skip (a header); throws a {@link LineError} when the line is bad. */
export type LineDecoder = (line: string, row: DecodedRow) => boolean;

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

/** What detection chose, with a line saying why. */
export interface DetectedFormat {
  format: ImportFormat;
  decode: LineDecoder;
  /** True when rows carry their own symbol. */
  hasSymbol: boolean;
  /** A sentence for the user: which format was taken and how times are read. */
  description: string;
}

export { zoneConverter };

const GENERIC_NAMES = [...CSV_COLUMNS, "-"] as const;

/** Where the fields of a line are: start and end of field i at 2i and 2i + 1, trimmed. */
type Bounds = Int32Array;

/**
 * Finds the fields of `line` split on `delimiter` (no quoting: these formats never quote) into
 * `bounds`, trimmed of blanks, without cutting them out; returns the number of fields. Only the
 * first `keep` are located (the others are counted).
 */
function fieldsOf(line: string, delimiter: number, bounds: Bounds, keep = bounds.length / 2): number {
  let n = 0;
  let start = 0;
  const length = line.length;
  for (;;) {
    let end = start;
    while (end < length && line.charCodeAt(end) !== delimiter) end++;
    if (n < keep) {
      let a = start;
      let b = end;
      while (a < b && line.charCodeAt(a) <= 32) a++;
      while (b > a && line.charCodeAt(b - 1) <= 32) b--;
      bounds[2 * n] = a;
      bounds[2 * n + 1] = b;
    }
    n++;
    if (end >= length) return n;
    start = end + 1;
  }
}

/** Field i of a line, as written (for messages and the slower formats). */
function field(line: string, bounds: Bounds, i: number): string {
  return line.slice(bounds[2 * i]!, bounds[2 * i + 1]!);
}

/** The number in field `i`, or throws naming it. */
function numberIn(line: string, bounds: Bounds, i: number, name: string): number {
  const value = decimalIn(line, bounds[2 * i]!, bounds[2 * i + 1]!);
  if (value !== value) throw new LineError(`${name} '${field(line, bounds, i)}' is not a finite number`);
  return value;
}

/** OHLCV from fields `o h l c v` of the line (v < 0: no volume column, 0). */
function values(row: DecodedRow, line: string, bounds: Bounds, o: number, h: number, l: number, c: number, v: number): void {
  row.line = line;
  const at = row.at;
  at[0] = bounds[2 * o]!;
  at[1] = bounds[2 * o + 1]!;
  at[2] = bounds[2 * h]!;
  at[3] = bounds[2 * h + 1]!;
  at[4] = bounds[2 * l]!;
  at[5] = bounds[2 * l + 1]!;
  at[6] = bounds[2 * c]!;
  at[7] = bounds[2 * c + 1]!;
  row.open = numberIn(line, bounds, o, "open");
  row.high = numberIn(line, bounds, h, "high");
  row.low = numberIn(line, bounds, l, "low");
  row.close = numberIn(line, bounds, c, "close");
  if (v < 0) {
    at[8] = -1;
    row.volume = 0;
  } else {
    at[8] = bounds[2 * v]!;
    at[9] = bounds[2 * v + 1]!;
    row.volume = numberIn(line, bounds, v, "volume");
  }
}

/** Splits `line` on `delimiter` into trimmed strings (the header and detection paths). */
function splitFields(line: string, delimiter: string): string[] {
  return line.split(delimiter).map((f) => f.trim());
}

function delimiterOf(line: string): string {
  const counts = [",", ";", "\t"].map((d) => [d, line.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ",";
}

/** Splits one line of our CSV; double-quoted fields may hold commas and `""`. */
function splitQuoted(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    let field = "";
    while (line[i] === " " || line[i] === "\t") i++;
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new LineError("unterminated quoted field");
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      while (line[i] === " " || line[i] === "\t") i++;
      if (i < line.length && line[i] !== ",") throw new LineError("text after a closing quote");
    } else {
      const end = line.indexOf(",", i);
      field = (end < 0 ? line.slice(i) : line.slice(i, end)).trim();
      i = end < 0 ? line.length : end;
    }
    fields.push(field);
    i++;
  }
  return fields;
}

/** Our CSV: `symbol,time,open,high,low,close,volume`, a header optional on the first line. */
function xqlDecoder(): LineDecoder {
  const bounds = new Int32Array(16);
  let first = true;
  return (line, row) => {
    let text = line;
    if (line.includes('"')) {
      // Quoted fields: unquoted into a plain line (a quote around a number changes nothing else).
      const fields = splitQuoted(line);
      if (fields.some((f) => f.includes(","))) throw new LineError(`a field holds a comma: '${fields.find((f) => f.includes(","))}'`);
      text = fields.join(",");
    }
    const n = fieldsOf(text, 44, bounds, 8);
    if (first) {
      first = false;
      if (field(text, bounds, 0).toLowerCase() === "symbol") {
        const names = splitFields(text, ",").map((x) => x.toLowerCase());
        if (names.length !== CSV_COLUMNS.length || names.some((x, i) => x !== CSV_COLUMNS[i])) {
          throw new LineError(`expected the header ${CSV_COLUMNS.join(",")}, found ${line.trim()}`);
        }
        return false;
      }
    }
    if (n !== CSV_COLUMNS.length) throw new LineError(`expected 7 fields (${CSV_COLUMNS.join(",")}), found ${n}`);
    row.symbol = field(text, bounds, 0);
    const ms = digitsIn(text, bounds[2]!, bounds[3]!);
    if (ms === ms && bounds[3]! - bounds[2]! <= 15) row.time = ms;
    else {
      const time = parseTime(field(text, bounds, 1));
      if (typeof time === "string") throw new LineError(time);
      row.time = time;
    }
    row.at[10] = bounds[2]!;
    row.at[11] = bounds[3]!;
    values(row, text, bounds, 2, 3, 4, 5, 6);
    return true;
  };
}

/** Binance klines: open time in ms (13 digits) or µs (16 digits, dumps from 2025 on), taken exactly. */
function binanceDecoder(): LineDecoder {
  const bounds = new Int32Array(12);
  return (line, row) => {
    // Only the first six fields are located; the other six are counted.
    const n = fieldsOf(line, 44, bounds, 6);
    if (n !== 12) throw new LineError(`expected 12 fields of a Binance kline, found ${n}`);
    const start = bounds[0]!;
    const end = bounds[1]!;
    const value = digitsIn(line, start, end);
    if (value !== value) {
      const text = field(line, bounds, 0);
      if (/open_time/i.test(text)) return false; // some dumps carry a header
      throw new LineError(`open time '${text}' is not an integer`);
    }
    row.time = end - start >= 15 ? value / 1000 : value;
    row.at[10] = start;
    row.at[11] = end;
    values(row, line, bounds, 1, 2, 3, 4, 5);
    return true;
  };
}

const MT_DATE = /^(\d{4})\.(\d{2})\.(\d{2})$/;
const MT_TIME = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

function wallTime(y: string, mo: string, d: string, h: string, mi: string, s: string, text: string): number {
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const c = new Date(t);
  if (c.getUTCFullYear() !== Number(y) || c.getUTCMonth() !== Number(mo) - 1 || c.getUTCDate() !== Number(d) || c.getUTCHours() !== Number(h) || c.getUTCMinutes() !== Number(mi) || c.getUTCSeconds() !== Number(s)) {
    throw new LineError(`time '${text}' is not a valid date and time`);
  }
  return t;
}

function metatraderDecoder(delimiter: string, convert: (t: number) => number): LineDecoder {
  const bounds = new Int32Array(24);
  const code = delimiter.charCodeAt(0);
  return (line, row) => {
    const n = fieldsOf(line, code, bounds, 12);
    const first = field(line, bounds, 0);
    if (/^<?date>?$/i.test(first)) return false;
    const date = MT_DATE.exec(first);
    if (!date) throw new LineError(`date '${first}' is not YYYY.MM.DD`);
    // Daily and weekly exports may carry no time column: then the second field is the open.
    const second = n > 1 ? field(line, bounds, 1) : "";
    const hasTime = MT_TIME.test(second);
    const time = hasTime ? MT_TIME.exec(second)! : ["", "00", "00", "00"];
    const at = hasTime ? 2 : 1;
    if (n - at < 5) throw new LineError(`expected at least date, time, open, high, low, close and volume, found ${n} fields`);
    numberIn(line, bounds, at + 4, "tick volume");
    const realVolume = n > at + 5 && bounds[2 * (at + 5) + 1]! > bounds[2 * (at + 5)]! ? numberIn(line, bounds, at + 5, "volume") : 0;
    const text = hasTime ? `${first} ${second}` : first;
    row.time = convert(wallTime(date[1]!, date[2]!, date[3]!, time[1]!, time[2]!, time[3] ?? "00", text));
    row.timeText = text;
    row.at[10] = -1;
    values(row, line, bounds, at, at + 1, at + 2, at + 3, realVolume > 0 ? at + 5 : at + 4);
    return true;
  };
}

const HD_TIME = /^(\d{4})(\d{2})(\d{2}) (\d{2})(\d{2})(\d{2})$/;

function histdataDecoder(convert: (t: number) => number): LineDecoder {
  const bounds = new Int32Array(12);
  return (line, row) => {
    const n = fieldsOf(line, 59, bounds, 6);
    if (n !== 6) throw new LineError(`expected 6 fields 'YYYYMMDD HHMMSS;open;high;low;close;volume', found ${n}`);
    const text = field(line, bounds, 0);
    const m = HD_TIME.exec(text);
    if (!m) throw new LineError(`time '${text}' is not 'YYYYMMDD HHMMSS'`);
    row.time = convert(wallTime(m[1]!, m[2]!, m[3]!, m[4]!, m[5]!, m[6]!, text));
    row.timeText = text;
    row.at[10] = -1;
    values(row, line, bounds, 1, 2, 3, 4, 5);
    return true;
  };
}

/** A generic time field in ms: exact (a fraction of a millisecond stays a fraction, for the grid check to refuse). */
function genericTime(text: string, format: TimeFormat, convert: (t: number) => number): number {
  if (format === "iso") {
    const t = parseTime(text);
    if (typeof t === "string") throw new LineError(t);
    // A written offset or Z wins; a bare wall time is in the source zone.
    return /(?:Z|[+-]\d{2}:?\d{2})$/.test(text) || /^-?\d+$/.test(text) ? t : convert(t);
  }
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new LineError(`time '${text}' is not a number of ${format === "s" ? "seconds" : format === "ms" ? "milliseconds" : "microseconds"}`);
  const n = Number(text);
  const ms = format === "s" ? n * 1000 : format === "ms" ? n : n / 1000;
  if (!(Math.abs(ms) <= Number.MAX_SAFE_INTEGER)) throw new LineError(`time '${text}' is out of range`);
  return ms;
}

function genericDecoder(columns: readonly string[], delimiter: string, timeFormat: TimeFormat, convert: (t: number) => number): LineDecoder {
  const at = (name: string): number => columns.indexOf(name);
  const index = { symbol: at("symbol"), time: at("time"), open: at("open"), high: at("high"), low: at("low"), close: at("close"), volume: at("volume") };
  const bounds = new Int32Array(2 * columns.length);
  const code = delimiter.charCodeAt(0);
  let seenRow = false;
  return (line, row) => {
    const n = fieldsOf(line, code, bounds, columns.length);
    if (n < columns.length) throw new LineError(`expected ${columns.length} fields (${columns.join(",")}), found ${n}`);
    const text = field(line, bounds, index.time);
    let time: number;
    try {
      time = genericTime(text, timeFormat, convert);
    } catch (reason) {
      if (!seenRow) {
        seenRow = true;
        return false; // a header line
      }
      throw reason;
    }
    seenRow = true;
    row.symbol = index.symbol >= 0 ? field(line, bounds, index.symbol) : undefined;
    row.time = time;
    row.timeText = text;
    row.at[10] = -1;
    values(row, line, bounds, index.open, index.high, index.low, index.close, index.volume);
    return true;
  };
}

/** Checks `--columns`: known names, each once, with time and OHLC present. */
export function checkColumns(columns: readonly string[]): void {
  for (const name of columns) {
    if (!(GENERIC_NAMES as readonly string[]).includes(name)) {
      throw new XqlDataError("import-columns", { problem: `Unknown column '${name}' in --columns: use ${GENERIC_NAMES.join(" ")}` });
    }
  }
  for (const name of ["time", "open", "high", "low", "close"]) {
    if (!columns.includes(name)) throw new XqlDataError("import-columns", { problem: `--columns needs a '${name}' column` });
  }
  const named = columns.filter((c) => c !== "-");
  if (new Set(named).size !== named.length) throw new XqlDataError("import-columns", { problem: "--columns names a column twice" });
}

/**
 * Picks the format from the first non-empty line (or the options), and says which it took.
 *
 * @throws CsvImportError at that line when no format fits.
 */
export function detectFormat(firstLine: string, lineNumber: number, options: FormatOptions = {}): DetectedFormat {
  const line = firstLine.replace(/^\uFEFF/, "");
  const delimiter = delimiterOf(line);
  const fields = splitFields(line, delimiter);
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
      return { format, decode: xqlDecoder(), hasSymbol: true, description: "xql CSV (symbol,time,open,high,low,close,volume; times in ms or ISO 8601, UTC unless written)" };
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
      if (!columns) throw new XqlDataError("import-needs-columns", {});
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
      throw new XqlDataError("import-format", { format: String(format), known: IMPORT_FORMATS });
  }
}

const BINANCE_INTERVALS: Record<string, Timeframe> = { "1m": "m1", "5m": "m5", "15m": "m15", "30m": "m30", "1h": "h1", "4h": "h4", "1d": "d", "1w": "w" };

/**
 * What a file name tells: Binance `BTCUSDT-1h-2026-01.csv[.gz]` (monthly), `BTCUSDT-1m-2025.csv`
 * (a year) or `BTCUSDT-1m-2025-03-01.csv` (daily), and HistData `DAT_ASCII_EURUSD_M1_2026.csv`.
 */
export function hintsFromFileName(file: string): { symbol?: string; timeframe?: Timeframe } {
  const name = basename(file);
  const binance = /^([A-Z0-9]{2,32})-(1m|5m|15m|30m|1h|4h|1d|1w)-\d{4}(?:-\d{2}(?:-\d{2})?)?\.csv(?:\.gz)?$/.exec(name);
  if (binance) return { symbol: binance[1], timeframe: BINANCE_INTERVALS[binance[2]!] };
  const histdata = /^DAT_ASCII_([A-Z0-9]{2,32})_M1_/i.exec(name);
  if (histdata) return { symbol: histdata[1]!.toUpperCase(), timeframe: "m1" };
  return {};
}
