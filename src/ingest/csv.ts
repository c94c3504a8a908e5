/**
 * Checking bar files line by line, whatever the format (`formats.ts` decodes a line): the
 * same bounds for every format — a time on the timeframe's grid (the market's session:
 * `src/sessions/periods.ts`), not before 1970 nor more than two days ahead, prices and volumes
 * in range, consistent OHLC, no bar given twice — with the first bad line named. Checked rows go
 * to a sink: in memory (`parseBarsCsv`, small inputs) or the import's staging file
 * (`importer.ts`, any size).
 */
import type { Timeframe } from "../types.js";
import { TIMEFRAME_MS, isTimeframe } from "../types.js";
import { WEEK_ORIGIN, isPeriodOpen, periodRule, sessionOf } from "../sessions/periods.js";
import type { BarBatch } from "../store/store.js";
import { XqlDataError } from "../errors.js";
import { CsvImportError, LineError, duplicate } from "./errors.js";
import { CSV_COLUMNS, type DecodedRow, type DetectedFormat, type FormatOptions, detectFormat, newRow, timeTextOf, valueText } from "./formats.js";
import { parseTime } from "./fields.js";

export { CsvImportError, CSV_COLUMNS, parseTime };

/** The stored spelling of a market name: upper case, so `forex` and `FOREX` are one market. */
export function normalizeMarket(name: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(name)) {
    throw new XqlDataError("import-market", { name });
  }
  return name.toUpperCase();
}

const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,31}$/;
/** How far past the current time a bar may open: 2 days (a feed in another time zone, a clock a little ahead). */
export const MAX_FUTURE_MS = 2 * 86_400_000;
/** Smallest price accepted: positive, and well above the denormal range. */
export const MIN_PRICE = 1e-12;
/** Largest price accepted. */
export const MAX_PRICE = 1e12;
/** Largest volume accepted. */
export const MAX_VOLUME = 1e18;
/**
 * Lines in a row that hold no bar (empty, or headers) before an import gives up: a file of bars
 * has a header or a few blank lines, not a gigabyte of line breaks (a gzip of newlines).
 */
export const MAX_LINES_WITHOUT_BAR = 1000;

/** True when `time` is the open time of a bar of `timeframe` in `market` (default UTC: weeks open Monday 00:00). */
export function isAlignedOpen(timeframe: Timeframe, time: number, market = "CRYPTO"): boolean {
  return isPeriodOpen(time, timeframe, market);
}

/** The grid check of one timeframe and market, arithmetic where the periods are UTC-aligned. */
function gridCheck(timeframe: Timeframe, market: string): (t: number) => boolean {
  const step = TIMEFRAME_MS[timeframe];
  if (sessionOf(market) === "forex" && (timeframe === "h4" || timeframe === "d" || timeframe === "w")) {
    return (t) => isPeriodOpen(t, timeframe, market);
  }
  const origin = timeframe === "w" ? WEEK_ORIGIN : 0;
  return (t) => (t - origin) % step === 0;
}

/** Where checked rows go: in memory, or the import's staging file. */
export interface RowSink {
  add(symbol: string, time: number, open: number, high: number, low: number, close: number, volume: number, line: number): void;
}

/** Checks lines one at a time and hands each bar to a sink. */
export class BarsCsvParser {
  readonly market: string;
  readonly timeframe: Timeframe;
  private readonly formatOptions: FormatOptions;
  private readonly symbol: string | undefined;
  private readonly onGrid: (t: number) => boolean;
  private readonly row: DecodedRow = newRow();
  private lastSymbol = "";
  /** Lines in a row that held no bar. */
  private withoutBar = 0;
  /** The format taken, known once the first non-empty line is read. */
  detected: DetectedFormat | undefined;
  rows = 0;
  sink: RowSink;

  /** The latest open time accepted: now + {@link MAX_FUTURE_MS}. */
  readonly latestTime: number;

  constructor(options: { market: string; timeframe: string; symbol?: string; now?: number; sink?: RowSink } & FormatOptions) {
    this.latestTime = (options.now ?? Date.now()) + MAX_FUTURE_MS;
    this.market = normalizeMarket(options.market);
    if (!isTimeframe(options.timeframe)) {
      throw new XqlDataError("import-timeframe", { timeframe: options.timeframe });
    }
    this.timeframe = options.timeframe;
    if (options.symbol !== undefined && !SYMBOL.test(options.symbol)) {
      throw new XqlDataError("import-symbol", { symbol: options.symbol });
    }
    this.symbol = options.symbol;
    this.formatOptions = options;
    this.onGrid = gridCheck(this.timeframe, this.market);
    this.sink = options.sink ?? new MemorySink();
  }

  /** Checks one line (1-based `lineNumber`); throws {@link CsvImportError} when it is bad. */
  push(rawLine: string, lineNumber: number): void {
    const line = this.detected ? rawLine : rawLine.replace(/^\uFEFF/, "");
    const c0 = line.charCodeAt(0);
    // A line starting with a printable character is not blank; only the others need a trim.
    if (line.length === 0 || ((c0 <= 32 || c0 === 0xfeff || c0 === 0xa0) && line.trim() === "")) {
      this.skipped(lineNumber);
      return;
    }
    if (!this.detected) {
      this.detected = detectFormat(line, lineNumber, this.formatOptions);
      if (!this.detected.hasSymbol && this.symbol === undefined) {
        throw new XqlDataError("import-needs-symbol", { format: this.detected.description });
      }
    }
    const row = this.row;
    row.symbol = undefined;
    let isBar: boolean;
    try {
      isBar = this.detected.decode(line, row);
    } catch (reason) {
      if (reason instanceof LineError) throw new CsvImportError(lineNumber, reason.reason);
      throw reason;
    }
    if (!isBar) {
      this.skipped(lineNumber);
      return;
    }
    this.withoutBar = 0;
    const symbol = row.symbol ?? this.symbol!;
    if (symbol !== this.lastSymbol) {
      if (!SYMBOL.test(symbol)) throw new CsvImportError(lineNumber, `invalid symbol '${symbol}' (1-32 letters, digits or . _ : / -)`);
      this.lastSymbol = symbol;
    }
    this.check(row, lineNumber);
    this.sink.add(symbol, row.time, row.open, row.high, row.low, row.close, row.volume, lineNumber);
    this.rows++;
  }

  private skipped(lineNumber: number): void {
    if (++this.withoutBar > MAX_LINES_WITHOUT_BAR) {
      throw new CsvImportError(lineNumber, `${MAX_LINES_WITHOUT_BAR.toLocaleString("en-US")} lines in a row hold no bar (empty lines or headers): not a file of bars`);
    }
  }

  /** The checks every format shares. */
  private check(row: DecodedRow, lineNumber: number): void {
    const { time, open, high, low, close, volume } = row;
    // Bounded before any date is printed: a time past year 275760 has no ISO form at all.
    if (time < 0) throw new CsvImportError(lineNumber, `time '${timeTextOf(row)}' is before 1970-01-01T00:00:00.000Z`);
    if (time > this.latestTime) {
      throw new CsvImportError(
        lineNumber,
        `time '${timeTextOf(row)}' is in the future: bars may open at most 2 days after now (${new Date(this.latestTime).toISOString()})`,
      );
    }
    if (!this.onGrid(time)) {
      const tf = this.timeframe;
      if (!Number.isInteger(time)) {
        throw new CsvImportError(lineNumber, `time '${timeTextOf(row)}' is not the open time of a ${tf} bar: it is not a whole millisecond`);
      }
      throw new CsvImportError(lineNumber, `time ${new Date(time).toISOString()} is not the open time of a ${tf} bar (${periodRule(tf, this.market)})`);
    }
    for (let f = 0; f < 4; f++) {
      const price = f === 0 ? open : f === 1 ? high : f === 2 ? low : close;
      if (price < MIN_PRICE || price > MAX_PRICE) {
        throw new CsvImportError(lineNumber, `${CSV_COLUMNS[f + 2]} ${valueText(row, f)} is out of range: prices are between 1e-12 and 1e12`);
      }
    }
    if (volume > MAX_VOLUME) throw new CsvImportError(lineNumber, `volume ${valueText(row, 4)} is out of range: at most 1e18`);
    if (high < Math.max(open, close, low)) throw new CsvImportError(lineNumber, `high ${high} is below open, close or low`);
    if (low > Math.min(open, close)) throw new CsvImportError(lineNumber, `low ${low} is above open or close`);
    if (volume < 0) throw new CsvImportError(lineNumber, `volume ${volume} is negative`);
  }

  /** The checked bars of a {@link MemorySink}, oldest first per symbol. */
  finish(): BarBatch {
    if (!(this.sink instanceof MemorySink)) throw new Error("internal: finish() reads bars kept in memory; this parser streams to its sink");
    if (this.rows === 0) throw new CsvImportError(0, "the file holds no bars", "import-empty");
    return { market: this.market, timeframe: this.timeframe, symbols: this.sink.bars() };
  }
}

/** Rows kept in memory per symbol: what `parseBarsCsv` returns (small inputs). */
export class MemorySink implements RowSink {
  private readonly symbols = new Map<string, { time: number[]; open: number[]; high: number[]; low: number[]; close: number[]; volume: number[]; line: number[] }>();

  add(symbol: string, time: number, open: number, high: number, low: number, close: number, volume: number, line: number): void {
    let rows = this.symbols.get(symbol);
    if (!rows) {
      rows = { time: [], open: [], high: [], low: [], close: [], volume: [], line: [] };
      this.symbols.set(symbol, rows);
    }
    const n = rows.time.length;
    if (n > 0 && rows.time[n - 1] === time) throw duplicate(symbol, time, line, rows.line[n - 1]!);
    rows.time.push(time);
    rows.open.push(open);
    rows.high.push(high);
    rows.low.push(low);
    rows.close.push(close);
    rows.volume.push(volume);
    rows.line.push(line);
  }

  /** The bars per symbol, oldest first; a bar given twice is an error naming both lines (the earliest such pair). */
  bars(): BarBatch["symbols"][number][] {
    let first: CsvImportError | undefined;
    const out = [...this.symbols].map(([symbol, rows]) => {
      const order = rows.time.map((_, i) => i).sort((a, b) => rows.time[a]! - rows.time[b]! || rows.line[a]! - rows.line[b]!);
      const n = order.length;
      const cols = { time: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
      order.forEach((from, to) => {
        if (to > 0 && rows.time[order[to - 1]!] === rows.time[from]) {
          const error = duplicate(symbol, rows.time[from]!, rows.line[from]!, rows.line[order[to - 1]!]!);
          if (!first || error.line < first.line) first = error;
        }
        cols.time[to] = rows.time[from]!;
        cols.open[to] = rows.open[from]!;
        cols.high[to] = rows.high[from]!;
        cols.low[to] = rows.low[from]!;
        cols.close[to] = rows.close[from]!;
        cols.volume[to] = rows.volume[from]!;
      });
      return { symbol, bars: cols };
    });
    if (first) throw first;
    return out;
  }
}

/** Parses CSV text already in memory (what the tests and small inputs use). */
export function parseBarsCsv(text: string, options: { market: string; timeframe: string; symbol?: string; now?: number } & FormatOptions): BarBatch {
  const parser = new BarsCsvParser(options);
  text.split(/\r\n|\n|\r/).forEach((line, i) => parser.push(line, i + 1));
  return parser.finish();
}
