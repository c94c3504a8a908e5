/**
 * Bars that arrive as values rather than as a file (a pushed NDJSON line, an exchange's OHLCV
 * array), checked by exactly the rules of `xql data import` (decisions §6: "the same bounds and
 * validation"): each row goes through the import's own {@link BarsCsvParser} as a line of our
 * CSV, so a pushed or synced bar is accepted or refused with the same message a file's would get.
 */
import { BarsCsvParser, CSV_COLUMNS, type MemorySink } from "./csv.js";
import type { BarBatch } from "../store/store.js";
import type { Bars, Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";

/** One bar as a feed gives it: numbers, or the decimal text a feed may send to keep every digit. */
export interface BarRow {
  symbol: string;
  /** Open time: ms since the epoch, or ISO 8601 text (UTC unless an offset is written). */
  time: number | string;
  open: number | string;
  high: number | string;
  low: number | string;
  close: number | string;
  volume: number | string;
}

/** A field of our CSV, quoted when it holds a delimiter, a quote or a line break (the parser unquotes it). */
function csvField(value: number | string): string {
  // A number's text never holds a delimiter or a quote.
  if (typeof value === "number") return String(value);
  const text = value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Collects rows of one market and timeframe, each checked as it is added; {@link finish}
 * gives the batch (a bar given twice is an error naming both lines).
 */
export class BarRowBatch {
  private readonly parser: BarsCsvParser;

  /** @throws Error for a market or timeframe the import refuses. `sink`: where checked rows go (default: memory). */
  constructor(market: string, timeframe: Timeframe, now: number, sink?: MemorySink) {
    this.parser = new BarsCsvParser({ market, timeframe, now, format: "xql", sink });
    // The header first: a first row whose symbol is literally "symbol" is then a bar, not a header.
    this.parser.push(CSV_COLUMNS.join(","), 0);
  }

  get market(): string {
    return this.parser.market;
  }

  get timeframe(): Timeframe {
    return this.parser.timeframe;
  }

  /** Rows accepted so far. */
  get rows(): number {
    return this.parser.rows;
  }

  /** Checks and keeps one row; `line` (1-based) names it in the error. @throws CsvImportError */
  add(row: BarRow, line: number): void {
    this.parser.push(
      [row.symbol, row.time, row.open, row.high, row.low, row.close, row.volume].map(csvField).join(","),
      line,
    );
  }

  /** The checked bars, oldest first per symbol. @throws CsvImportError for a duplicate bar or no rows. */
  finish(): BarBatch {
    return this.parser.finish();
  }
}

/** What {@link closedBarsOnly} kept: the batches without bars still open, and how many it left out. */
export interface ClosedBars {
  batches: BarBatch[];
  /** Bars left out because their period had not ended by `now`. */
  open: number;
}

/**
 * Drops every bar still open at `now`: a bar closes at its open time plus its timeframe's
 * duration, and one closing after `now` could still change, so it is never stored (decisions
 * §6). Symbols left with no bars are dropped, then batches left with no symbols.
 */
export function closedBarsOnly(batches: readonly BarBatch[], now: number): ClosedBars {
  let open = 0;
  const kept: BarBatch[] = [];
  for (const batch of batches) {
    const latestOpen = now - TIMEFRAME_MS[batch.timeframe];
    const symbols = [];
    for (const entry of batch.symbols) {
      const n = closedCount(entry.bars.time, latestOpen);
      open += entry.bars.time.length - n;
      if (n === entry.bars.time.length) symbols.push(entry);
      else if (n > 0) symbols.push({ symbol: entry.symbol, bars: prefix(entry.bars, n) });
    }
    if (symbols.length > 0) kept.push({ ...batch, symbols });
  }
  return { batches: kept, open };
}

/** Bars (oldest first) that opened at or before `latestOpen`. */
function closedCount(time: ArrayLike<number>, latestOpen: number): number {
  let n = time.length;
  while (n > 0 && time[n - 1]! > latestOpen) n--;
  return n;
}

function prefix(bars: Bars, n: number): Bars {
  const cut = (column: ArrayLike<number>): Float64Array => Float64Array.from({ length: n }, (_, i) => column[i]!);
  return { time: cut(bars.time), open: cut(bars.open), high: cut(bars.high), low: cut(bars.low), close: cut(bars.close), volume: cut(bars.volume) };
}
