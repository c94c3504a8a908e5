/**
 * CSV import: `symbol,time,open,high,low,close,volume`, header optional, time as ms since
 * the epoch or ISO 8601 (UTC when no offset is written). Every row is checked before
 * anything is written, and the first bad row is reported by its line number; the store
 * then writes the whole file in one transaction, so a failure leaves nothing behind.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { Bars, Timeframe } from "../types.js";
import { TIMEFRAME_MS, isTimeframe } from "../types.js";
import type { BarBatch, BarStore, ProgressListener } from "./store.js";

export const CSV_COLUMNS = ["symbol", "time", "open", "high", "low", "close", "volume"] as const;

/** A bad row or file; `line` is 1-based (0 when the problem is the file as a whole). */
export class CsvImportError extends Error {
  override readonly name = "CsvImportError";
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `line ${line}: ${reason}` : reason);
  }
}

/** The stored spelling of a market name: upper case, so `forex` and `FOREX` are one market. */
export function normalizeMarket(name: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(name)) {
    throw new Error(`Invalid market name '${name}': use letters, digits and _ (starting with a letter)`);
  }
  return name.toUpperCase();
}

const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,31}$/;
const INTEGER = /^-?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** How far past the current time a bar may open: 2 days (a feed in another time zone, a clock a little ahead). */
export const MAX_FUTURE_MS = 2 * 86_400_000;
/** Smallest price accepted: positive, and well above the denormal range. */
export const MIN_PRICE = 1e-12;
/** Largest price accepted. */
export const MAX_PRICE = 1e12;
/** Largest volume accepted. */
export const MAX_VOLUME = 1e18;

/** 1970-01-05, the first Monday after the epoch: weekly bars open on Mondays. */
const FIRST_MONDAY = 4 * TIMEFRAME_MS.d;

/** True when `time` is the open time of a bar of `timeframe` (weeks open Monday 00:00 UTC). */
export function isAlignedOpen(timeframe: Timeframe, time: number): boolean {
  const step = TIMEFRAME_MS[timeframe];
  const origin = timeframe === "w" ? FIRST_MONDAY : 0;
  return (((time - origin) % step) + step) % step === 0;
}

/** ms since the epoch of a CSV time field, or a reason it is not one. */
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

/** Splits one CSV line; double-quoted fields may hold commas and `""`. */
function splitCsvLine(line: string, lineNumber: number): string[] {
  if (!line.includes('"')) return line.split(",").map((f) => f.trim());
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    let field = "";
    while (line[i] === " " || line[i] === "\t") i++;
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new CsvImportError(lineNumber, "unterminated quoted field");
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
      if (i < line.length && line[i] !== ",") throw new CsvImportError(lineNumber, "text after a closing quote");
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

interface SymbolRows {
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  line: number[];
}

/** Checks CSV lines one at a time and collects them into a {@link BarBatch}. */
export class BarsCsvParser {
  readonly market: string;
  readonly timeframe: Timeframe;
  private readonly symbols = new Map<string, SymbolRows>();
  private seenContent = false;
  rows = 0;

  /** The latest open time accepted: now + {@link MAX_FUTURE_MS}. */
  readonly latestTime: number;

  constructor(options: { market: string; timeframe: string; now?: number }) {
    this.latestTime = (options.now ?? Date.now()) + MAX_FUTURE_MS;
    this.market = normalizeMarket(options.market);
    if (!isTimeframe(options.timeframe)) {
      throw new Error(`Unknown timeframe '${options.timeframe}': use one of m1 m5 m15 m30 h1 h4 d w`);
    }
    this.timeframe = options.timeframe;
  }

  /** Checks one line (1-based `lineNumber`); throws {@link CsvImportError} when it is bad. */
  push(rawLine: string, lineNumber: number): void {
    const line = lineNumber === 1 ? rawLine.replace(/^\uFEFF/, "") : rawLine;
    if (line.trim() === "") return;
    const fields = splitCsvLine(line, lineNumber);
    if (!this.seenContent) {
      this.seenContent = true;
      if (fields[0]?.toLowerCase() === "symbol") {
        const names = fields.map((f) => f.toLowerCase());
        if (names.length !== CSV_COLUMNS.length || names.some((n, i) => n !== CSV_COLUMNS[i])) {
          throw new CsvImportError(lineNumber, `expected the header ${CSV_COLUMNS.join(",")}, found ${line.trim()}`);
        }
        return;
      }
    }
    if (fields.length !== CSV_COLUMNS.length) {
      throw new CsvImportError(lineNumber, `expected 7 fields (${CSV_COLUMNS.join(",")}), found ${fields.length}`);
    }
    const [symbol, timeText] = fields as [string, string];
    if (!SYMBOL.test(symbol)) {
      throw new CsvImportError(lineNumber, `invalid symbol '${symbol}' (1-32 letters, digits or . _ : / -)`);
    }
    const time = parseTime(timeText);
    if (typeof time === "string") throw new CsvImportError(lineNumber, time);
    // Bounded before any date is printed: a time past year 275760 has no ISO form at all.
    if (time < 0) throw new CsvImportError(lineNumber, `time '${timeText}' is before 1970-01-01T00:00:00.000Z`);
    if (time > this.latestTime) {
      throw new CsvImportError(
        lineNumber,
        `time '${timeText}' is in the future: bars may open at most 2 days after now (${new Date(this.latestTime).toISOString()})`,
      );
    }
    if (!isAlignedOpen(this.timeframe, time)) {
      const rule = this.timeframe === "w" ? "a Monday 00:00 UTC" : `a multiple of ${this.timeframe} since the epoch`;
      throw new CsvImportError(
        lineNumber,
        `time ${new Date(time).toISOString()} is not the open time of a ${this.timeframe} bar (${rule})`,
      );
    }
    const values: number[] = [];
    for (let f = 2; f < 7; f++) {
      const text = fields[f]!;
      const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
      if (!Number.isFinite(value)) throw new CsvImportError(lineNumber, `${CSV_COLUMNS[f]} '${text}' is not a finite number`);
      values.push(value);
    }
    const [open, high, low, close, volume] = values as [number, number, number, number, number];
    for (let f = 0; f < 4; f++) {
      const price = values[f]!;
      if (price < MIN_PRICE || price > MAX_PRICE) {
        throw new CsvImportError(lineNumber, `${CSV_COLUMNS[f + 2]} ${fields[f + 2]} is out of range: prices are between 1e-12 and 1e12`);
      }
    }
    if (volume > MAX_VOLUME) throw new CsvImportError(lineNumber, `volume ${fields[6]} is out of range: at most 1e18`);
    if (high < Math.max(open, close, low)) {
      throw new CsvImportError(lineNumber, `high ${high} is below open, close or low`);
    }
    if (low > Math.min(open, close)) throw new CsvImportError(lineNumber, `low ${low} is above open or close`);
    if (volume < 0) throw new CsvImportError(lineNumber, `volume ${volume} is negative`);

    let rows = this.symbols.get(symbol);
    if (!rows) {
      rows = { time: [], open: [], high: [], low: [], close: [], volume: [], line: [] };
      this.symbols.set(symbol, rows);
    }
    rows.time.push(time);
    rows.open.push(open);
    rows.high.push(high);
    rows.low.push(low);
    rows.close.push(close);
    rows.volume.push(volume);
    rows.line.push(lineNumber);
    this.rows++;
  }

  /** The checked bars, oldest first per symbol; a bar given twice is an error naming both lines. */
  finish(): BarBatch {
    if (this.rows === 0) throw new CsvImportError(0, "the file holds no bars");
    const symbols = [...this.symbols].map(([symbol, rows]) => {
      const order = rows.time.map((_, i) => i).sort((a, b) => rows.time[a]! - rows.time[b]! || rows.line[a]! - rows.line[b]!);
      const n = order.length;
      const bars: Bars = {
        time: new Float64Array(n),
        open: new Float64Array(n),
        high: new Float64Array(n),
        low: new Float64Array(n),
        close: new Float64Array(n),
        volume: new Float64Array(n),
      };
      const cols = bars as { [K in keyof Bars]: Float64Array };
      order.forEach((from, to) => {
        if (to > 0 && rows.time[order[to - 1]!] === rows.time[from]) {
          throw new CsvImportError(
            rows.line[from]!,
            `duplicate bar for ${symbol} at ${new Date(rows.time[from]!).toISOString()} (first on line ${rows.line[order[to - 1]!]})`,
          );
        }
        cols.time[to] = rows.time[from]!;
        cols.open[to] = rows.open[from]!;
        cols.high[to] = rows.high[from]!;
        cols.low[to] = rows.low[from]!;
        cols.close[to] = rows.close[from]!;
        cols.volume[to] = rows.volume[from]!;
      });
      return { symbol, bars };
    });
    return { market: this.market, timeframe: this.timeframe, symbols };
  }
}

/** Parses CSV text already in memory (what the tests and small inputs use). */
export function parseBarsCsv(text: string, options: { market: string; timeframe: string; now?: number }): BarBatch {
  const parser = new BarsCsvParser(options);
  text.split(/\r\n|\n|\r/).forEach((line, i) => parser.push(line, i + 1));
  return parser.finish();
}

export interface ImportProgress {
  /** Reading and checking: bytes read of the file's size. */
  onRead?: ProgressListener;
  /** Writing: bars written of the total. */
  onWrite?: ProgressListener;
}

/**
 * Reads, checks and writes a CSV file of bars. Idempotent: importing the same file again
 * replaces the same bars with the same values. Resolves to the number of bars written.
 */
export async function importBarsCsv(
  store: BarStore,
  file: string,
  options: { market: string; timeframe: string; now?: number } & ImportProgress,
): Promise<{ bars: number; symbols: number; market: string; timeframe: Timeframe }> {
  const parser = new BarsCsvParser(options);
  const size = (await stat(file)).size;
  const stream = createReadStream(file, { encoding: "utf8" });
  let bytes = 0;
  let lineNumber = 0;
  let reported = 0;
  stream.on("data", (chunk) => {
    bytes += Buffer.byteLength(chunk as string);
  });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      parser.push(line, ++lineNumber);
      if (options.onRead && bytes - reported > 1 << 20) {
        reported = bytes;
        options.onRead(bytes, size);
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  options.onRead?.(size, size);
  const batch = parser.finish();
  const written = await store.upsertBars([batch], options.onWrite);
  return { bars: written, symbols: batch.symbols.length, market: batch.market, timeframe: batch.timeframe };
}
