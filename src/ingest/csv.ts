/**
 * CSV import: `symbol,time,open,high,low,close,volume`, header optional, time as ms since
 * the epoch or ISO 8601 (UTC when no offset is written). Every row is checked before
 * anything is written, and the first bad row is reported by its line number; the store
 * then writes the whole file in one transaction, so a failure leaves nothing behind.
 */
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { detectFormat, hintsFromFileName, type DetectedFormat, type FormatOptions, type ImportFormat } from "./formats.js";
import type { Bars, Timeframe } from "../types.js";
import { TIMEFRAME_MS, isTimeframe } from "../types.js";
import type { BarBatch, BarStore, ProgressListener } from "../store/store.js";

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
  private readonly formatOptions: FormatOptions;
  private readonly symbol: string | undefined;
  /** The format taken, known once the first non-empty line is read. */
  detected: DetectedFormat | undefined;
  rows = 0;

  /** The latest open time accepted: now + {@link MAX_FUTURE_MS}. */
  readonly latestTime: number;

  constructor(options: { market: string; timeframe: string; symbol?: string; now?: number } & FormatOptions) {
    this.latestTime = (options.now ?? Date.now()) + MAX_FUTURE_MS;
    this.market = normalizeMarket(options.market);
    if (!isTimeframe(options.timeframe)) {
      throw new Error(`Unknown timeframe '${options.timeframe}': use one of m1 m5 m15 m30 h1 h4 d w`);
    }
    this.timeframe = options.timeframe;
    if (options.symbol !== undefined && !SYMBOL.test(options.symbol)) {
      throw new Error(`Invalid symbol '${options.symbol}' (1-32 letters, digits or . _ : / -)`);
    }
    this.symbol = options.symbol;
    this.formatOptions = options;
  }

  /** Checks one line (1-based `lineNumber`); throws {@link CsvImportError} when it is bad. */
  push(rawLine: string, lineNumber: number): void {
    const line = this.seenContent ? rawLine : rawLine.replace(/^\uFEFF/, "");
    if (line.trim() === "") return;
    if (!this.detected) {
      this.detected = detectFormat(line, lineNumber, this.formatOptions);
      if (!this.detected.hasSymbol && this.symbol === undefined) {
        throw new Error(`${this.detected.description}: its rows carry no symbol; give --symbol S`);
      }
    }
    if (this.detected.format !== "xql") {
      this.seenContent = true;
      let row;
      try {
        row = this.detected.decode(line, lineNumber);
      } catch (reason) {
        if (typeof reason === "string") throw new CsvImportError(lineNumber, reason);
        throw reason;
      }
      if (!row) return;
      const symbol = row.symbol ?? this.symbol!;
      if (!SYMBOL.test(symbol)) throw new CsvImportError(lineNumber, `invalid symbol '${symbol}' (1-32 letters, digits or . _ : / -)`);
      this.add(symbol, row.time, row.values, lineNumber);
      return;
    }
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
    const values: number[] = [];
    for (let f = 2; f < 7; f++) {
      const text = fields[f]!;
      const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
      if (!Number.isFinite(value)) throw new CsvImportError(lineNumber, `${CSV_COLUMNS[f]} '${text}' is not a finite number`);
      values.push(value);
    }
    this.add(symbol, time, values as [number, number, number, number, number], lineNumber, fields.slice(1));
  }

  /** The checks every format shares, then the row is kept. */
  private add(
    symbol: string,
    time: number,
    values: readonly [number, number, number, number, number],
    lineNumber: number,
    /** The fields as written (time, open, high, low, close, volume), for messages; numbers otherwise. */
    texts?: readonly string[],
  ): void {
    const text = (i: number, value: number): string => texts?.[i] ?? String(value);
    // Bounded before any date is printed: a time past year 275760 has no ISO form at all.
    if (time < 0) throw new CsvImportError(lineNumber, `time '${text(0, time)}' is before 1970-01-01T00:00:00.000Z`);
    if (time > this.latestTime) {
      throw new CsvImportError(
        lineNumber,
        `time '${text(0, time)}' is in the future: bars may open at most 2 days after now (${new Date(this.latestTime).toISOString()})`,
      );
    }
    if (!isAlignedOpen(this.timeframe, time)) {
      const rule = this.timeframe === "w" ? "a Monday 00:00 UTC" : `a multiple of ${this.timeframe} since the epoch`;
      throw new CsvImportError(
        lineNumber,
        `time ${isoOrNumber(time)} is not the open time of a ${this.timeframe} bar (${rule})`,
      );
    }
    const [open, high, low, close, volume] = values as [number, number, number, number, number];
    for (let f = 0; f < 4; f++) {
      const price = values[f]!;
      if (price < MIN_PRICE || price > MAX_PRICE) {
        throw new CsvImportError(lineNumber, `${CSV_COLUMNS[f + 2]} ${text(f + 1, price)} is out of range: prices are between 1e-12 and 1e12`);
      }
    }
    if (volume > MAX_VOLUME) throw new CsvImportError(lineNumber, `volume ${text(5, volume)} is out of range: at most 1e18`);
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

function isoOrNumber(time: number): string {
  const d = new Date(time);
  return Number.isNaN(d.getTime()) ? String(time) : d.toISOString();
}

/** Parses CSV text already in memory (what the tests and small inputs use). */
export function parseBarsCsv(text: string, options: { market: string; timeframe: string; symbol?: string; now?: number } & FormatOptions): BarBatch {
  const parser = new BarsCsvParser(options);
  text.split(/\r\n|\n|\r/).forEach((line, i) => parser.push(line, i + 1));
  return parser.finish();
}

export interface ImportProgress {
  /** Reading and checking: bytes read of the file's size (0 when unknown: stdin, .gz), and rows so far. */
  onRead?: (bytes: number, size: number, rows: number) => void;
  /** Writing: bars written of the total. */
  onWrite?: ProgressListener;
}

/** Options of {@link importBars}. */
export interface ImportOptions extends FormatOptions, ImportProgress {
  /** The market, stored in upper case. */
  market: string;
  /** The timeframe; for a Binance dump it may come from the file name. */
  timeframe?: string;
  /** The symbol of every row, for formats without a symbol column (Binance: from the file name when not given). */
  symbol?: string;
  /** Standard input when the file is `-` (tests pass their own stream). */
  stdin?: Readable;
}

/** What {@link importBars} wrote. */
export interface ImportResult {
  bars: number;
  symbols: number;
  market: string;
  timeframe: Timeframe;
  /** The format taken. */
  format: ImportFormat;
  /** The sentence saying which format was taken and how times were read. */
  formatDescription: string;
  /** Rows read and checked. */
  rows: number;
}

/** Opens `file` (`-` for stdin), gunzipping when it starts with the gzip magic bytes. */
async function openInput(file: string, stdin: Readable | undefined): Promise<{ stream: Readable; size: number; raw: Readable }> {
  if (file === "-") {
    const raw = stdin ?? process.stdin;
    // gzip on stdin is told by its first two bytes; the rest streams through.
    async function* bytes(): AsyncGenerator<Buffer> {
      const iterator = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
      const first = await iterator.next();
      if (first.done) return;
      const head = Buffer.from(first.value as Buffer);
      async function* all(): AsyncGenerator<Buffer> {
        yield head;
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          yield Buffer.from(next.value as Buffer);
        }
      }
      if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
        for await (const chunk of Readable.from(all()).pipe(createGunzip())) yield chunk as Buffer;
      } else {
        yield* all();
      }
    }
    return { stream: Readable.from(bytes()), size: 0, raw };
  }
  const size = (await stat(file)).size;
  const handle = await open(file, "r");
  const magic = Buffer.alloc(2);
  try {
    await handle.read(magic, 0, 2, 0);
  } finally {
    await handle.close();
  }
  const raw = createReadStream(file);
  const gz = magic[0] === 0x1f && magic[1] === 0x8b;
  return { stream: gz ? raw.pipe(createGunzip()) : raw, size: gz ? 0 : size, raw };
}

/**
 * Reads, detects, checks and writes a file of bars in any format of {@link detectFormat}
 * (`.gz` or not; `-` for stdin), in one transaction: the first bad line is reported
 * ({@link CsvImportError}) and nothing is written.
 */
export async function importBars(store: BarStore, file: string, options: ImportOptions): Promise<ImportResult> {
  const hints = file === "-" ? {} : hintsFromFileName(file);
  const timeframe = options.timeframe ?? hints.timeframe;
  if (timeframe === undefined) throw new Error("data import needs --timeframe TF (the file name does not tell it)");
  const parser = new BarsCsvParser({ ...options, timeframe, symbol: options.symbol ?? hints.symbol });
  const { stream, size, raw } = await openInput(file, options.stdin);
  let bytes = 0;
  let lineNumber = 0;
  let reported = 0;
  // Bytes are counted on files only: a listener on stdin would take its data before the reader.
  if (file !== "-") {
    raw.on("data", (chunk: Buffer | string) => {
      bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    });
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const gunzipError = new Promise<never>((_, reject) => stream.once("error", reject));
  gunzipError.catch(() => {});
  try {
    const reading = (async () => {
      for await (const line of lines) {
        parser.push(line, ++lineNumber);
        if (options.onRead && lineNumber - reported >= 20_000) {
          reported = lineNumber;
          options.onRead(bytes, size, parser.rows);
        }
      }
    })();
    await Promise.race([reading, gunzipError]);
  } catch (error) {
    if (error instanceof Error && "code" in error && String((error as { code: unknown }).code).startsWith("Z_")) {
      throw new CsvImportError(0, `the file is not valid gzip (${error.message})`);
    }
    throw error;
  } finally {
    lines.close();
    if (raw !== (options.stdin ?? process.stdin)) raw.destroy();
  }
  options.onRead?.(size, size, parser.rows);
  const batch = parser.finish();
  const { written } = await store.upsertBars([batch], options.onWrite);
  return {
    bars: written,
    symbols: batch.symbols.length,
    market: batch.market,
    timeframe: batch.timeframe,
    format: parser.detected!.format,
    formatDescription: parser.detected!.description,
    rows: parser.rows,
  };
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
  const result = await importBars(store, file, options);
  return { bars: result.bars, symbols: result.symbols, market: result.market, timeframe: result.timeframe };
}
