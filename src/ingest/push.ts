/**
 * Bars pushed by a feed (`POST /xql/bars`, decisions §6): CSV in any import format, or NDJSON
 * with one bar per line. Every row is checked by the import's rules before anything is
 * written; the first bad one is reported by its line (and the field, in the message), and the
 * whole push is refused. Bars still open are left out, not refused: a feed may send its
 * current bar with the closed ones.
 */
import { XqlDataError, assertNever } from "../errors.js";
import { BarsCsvParser, CsvImportError, MemorySink, normalizeMarket } from "./csv.js";
import { IMPORT_OPTION_CODES } from "./errors.js";
import { IMPORT_FORMATS, type ImportFormat, type TimeFormat } from "./formats.js";
import { BarRowBatch, type BarRow, type ClosedBars, closedBarsOnly } from "./rows.js";
import type { BarBatch } from "../store/store.js";
import { unknownTimeframeMessage } from "../suggest.js";
import { BAR_COLUMNS, TIMEFRAMES, type Timeframe, isTimeframe } from "../types.js";

/** The body kinds a push may have. */
export type PushFormat = "csv" | "ndjson";

/** The fields of one NDJSON line, in the order the messages list them. */
export const NDJSON_FIELDS = ["market", "timeframe", "symbol", ...BAR_COLUMNS] as const;

const FIELD_SET: ReadonlySet<string> = new Set(NDJSON_FIELDS);

/** What the query string of a CSV push may say about its rows (as `xql data import`'s options). */
export interface CsvPushOptions {
  market?: string;
  timeframe?: string;
  symbol?: string;
  format?: string;
  tz?: string;
  columns?: string;
  timeFormat?: string;
}

/**
 * A push that cannot be written: the message, and the 1-based line it names (0: the request as
 * a whole). The import's own {@link CsvImportError}, so a bad row reads the same in both.
 */
export class PushError extends CsvImportError {}

/** Lines read between two turns of the event loop: a 16 MiB body never holds it for long. */
export const PUSH_SLICE_LINES = 4096;

/** What bounds a push while it is read (decisions §14). */
export interface PushBounds {
  /** The service's markets: a row of any other market is refused at its line. */
  markets: readonly string[];
  /** New series one push may create. */
  perPush: number;
  /**
   * The series a market holds, as `timeframe \0 symbol` (derived ones included): asked only
   * when a push names more series than `perPush`, to tell its new series from stored ones.
   */
  stored(market: string): Promise<ReadonlySet<string>>;
  /** Resolves when reading may go on: other requests take their turns between slices of lines. */
  turn(): Promise<void>;
}

/**
 * Checks a pushed body and gives the batches to write (closed bars only) with the count of
 * open bars left out; `now` decides both which bars are open and how far ahead a time may be.
 * The body is read in slices of {@link PUSH_SLICE_LINES} lines with a turn between them, and
 * its new series are counted as they appear: once more than `bounds.perPush` of them are
 * named, no more rows are kept (the rest is only counted), so a push of 350,000 new symbols
 * is refused holding 10,000 symbols' rows, not 350,000.
 *
 * @throws CsvImportError (a {@link PushError} for what only a push can get wrong) naming the
 * first bad line, what is missing from the request, or how many new series the push names.
 */
export async function parsePush(format: PushFormat, text: string, options: CsvPushOptions, now: number, bounds: PushBounds): Promise<ClosedBars> {
  const counter = new NewSeries(bounds);
  const lines = new Lines(text);
  let batches: BarBatch[];
  switch (format) {
    case "csv":
      batches = [await parseCsvPush(lines, options, now, counter)];
      break;
    case "ndjson":
      batches = await parseNdjsonPush(lines, now, counter);
      break;
    default:
      return assertNever(format, "push format");
  }
  await counter.settle();
  return closedBarsOnly(batches, now);
}

/** The lines of a body one at a time (a split would hold a string for every line at once). */
class Lines {
  private at = 0;
  /** The 1-based number of the line last given. */
  number = 0;

  constructor(private readonly text: string) {}

  /** The next line without its break (`\r\n`, `\n` or `\r`), or undefined after the last. */
  next(): string | undefined {
    const text = this.text;
    if (this.at > text.length) return undefined;
    let end = this.at;
    while (end < text.length) {
      const c = text.charCodeAt(end);
      if (c === 10 || c === 13) break;
      end++;
    }
    const line = text.slice(this.at, end);
    this.at = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    this.number++;
    return line;
  }
}

/** A sink that keeps a row only while the push has not named too many new series. */
class CountedSink extends MemorySink {
  constructor(
    private readonly counter: NewSeries,
    private readonly market: string,
    private readonly timeframe: Timeframe,
  ) {
    super();
  }

  override add(symbol: string, time: number, open: number, high: number, low: number, close: number, volume: number, line: number): void {
    if (this.counter.keep(this.market, this.timeframe, symbol)) super.add(symbol, time, open, high, low, close, volume, line);
  }
}

/**
 * The new series a push names. Series are only noted while lines are read (synchronously);
 * between slices, once more than the bound are noted, the markets' stored series are read and
 * set apart. Past the bound, rows are no longer kept, but series are still counted, so the
 * refusal names the push's real count.
 */
class NewSeries {
  /** Symbols named per `market \0 timeframe` that are not known to be stored (the row's own strings: no key is built per row). */
  private readonly named = new Map<string, Set<string>>();
  private count = 0;
  /** Stored series per market, once read. */
  private readonly stored = new Map<string, ReadonlySet<string>>();
  private over = false;

  constructor(private readonly bounds: PushBounds) {}

  /** Notes a row's series; false once the push names too many new series (its row is not kept). */
  keep(market: string, timeframe: Timeframe, symbol: string): boolean {
    const key = `${market}\u0000${timeframe}`;
    let symbols = this.named.get(key);
    if (!symbols) this.named.set(key, (symbols = new Set()));
    if (symbols.has(symbol)) return !this.over;
    if (this.stored.get(market)?.has(`${timeframe}\u0000${symbol}`)) return true;
    symbols.add(symbol);
    this.count++;
    return !this.over;
  }

  /** Line `line` (1-based) was read: a market of the service, and a turn between slices. */
  async read(line: number): Promise<void> {
    if (line % PUSH_SLICE_LINES === 0) {
      await this.settle(false);
      await this.bounds.turn();
    }
  }

  /** Refuses a market the service does not have, at the line that names it. */
  checkMarket(market: string, line: number): void {
    const known = this.bounds.markets.map((m) => m.toUpperCase());
    if (!known.includes(market.toUpperCase())) {
      throw new PushError(line, `market '${market}' is not one of this service's markets (${this.bounds.markets.join(", ")})`);
    }
  }

  /** Sets stored series apart once more than the bound are named; `final`: the body is read, refuse past it. */
  async settle(final = true): Promise<void> {
    if (this.count > this.bounds.perPush) {
      for (const [key, symbols] of this.named) {
        const [market, timeframe] = key.split("\u0000") as [string, string];
        if (this.stored.has(market)) continue;
        const stored = await this.bounds.stored(market);
        this.stored.set(market, stored);
        for (const symbol of [...symbols]) {
          if (stored.has(`${timeframe}\u0000${symbol}`)) {
            symbols.delete(symbol);
            this.count--;
          }
        }
      }
      if (this.count > this.bounds.perPush) this.over = true;
    }
    if (final && this.over) {
      throw new PushError(
        0,
        `the push would create ${this.count.toLocaleString("en-US")} new series; one push creates at most ${this.bounds.perPush.toLocaleString("en-US")}`,
      );
    }
  }
}

async function parseCsvPush(lines: Lines, options: CsvPushOptions, now: number, counter: NewSeries): Promise<BarBatch> {
  if (options.market === undefined || options.market === "") throw new PushError(0, "A CSV push needs ?market= (e.g. ?market=CRYPTO&timeframe=m1)");
  if (options.timeframe === undefined || options.timeframe === "") throw new PushError(0, "A CSV push needs ?timeframe= (e.g. ?market=CRYPTO&timeframe=m1)");
  if (!isTimeframe(options.timeframe)) throw new PushError(0, `timeframe: ${unknownTimeframeMessage(options.timeframe, TIMEFRAMES)}`);
  if (options.format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(options.format)) {
    throw new PushError(0, `format: '${options.format}' is not one of ${IMPORT_FORMATS.join(" ")}`);
  }
  if (options.timeFormat !== undefined && !["iso", "s", "ms", "us"].includes(options.timeFormat)) {
    throw new PushError(0, "timeFormat: use iso, s, ms or us");
  }
  try {
    // Every row of a CSV push has the query's market: a market the service lacks is the request's fault.
    counter.checkMarket(normalizeMarket(options.market), 0);
    const parser = new BarsCsvParser({
      market: options.market,
      timeframe: options.timeframe,
      symbol: options.symbol,
      now,
      format: options.format as ImportFormat | undefined,
      tz: options.tz,
      columns: options.columns?.split(",").map((c) => c.trim()),
      timeFormat: options.timeFormat as TimeFormat | undefined,
    });
    parser.sink = new CountedSink(counter, parser.market, parser.timeframe);
    for (let line = lines.next(); line !== undefined; line = lines.next()) {
      parser.push(line, lines.number);
      await counter.read(lines.number);
    }
    return parser.finish();
  } catch (error) {
    if (error instanceof PushError) throw error;
    if (error instanceof CsvImportError) throw new PushError(error.line, error.code === "import-empty" ? "the body holds no bars" : error.reason, error.code);
    // The parser speaks to the command line ("give --symbol S"); a push gives its options in the query string.
    if (error instanceof XqlDataError && IMPORT_OPTION_CODES.has(error.code)) throw new PushError(0, inQueryWords(error.message));
    throw error;
  }
}

/** `give --symbol S` → `give ?symbol=`: an import message in the words of a push's query string. */
function inQueryWords(message: string): string {
  return message.replace(/--(market|timeframe|symbol|tz|format|columns|time-format)(?: (?:S|M|TF|ZONE|F)(?!\w))?/g, (_, name: string) =>
    `?${name === "time-format" ? "timeFormat" : name}=`,
  );
}

async function parseNdjsonPush(lines: Lines, now: number, counter: NewSeries): Promise<BarBatch[]> {
  const batches = new Map<string, BarRowBatch>();
  for (let text = lines.next(); text !== undefined; text = lines.next()) {
    const line = lines.number;
    const raw = text.trim();
    if (raw !== "") {
      const row = ndjsonRow(raw, line);
      const timeframe = row.timeframe;
      // Feeds send one market and timeframe on every line: each spelling is checked once.
      const key = `${row.market}\u0000${timeframe}`;
      let batch = batches.get(key);
      if (!batch) {
        let market: string;
        try {
          market = normalizeMarket(row.market);
        } catch {
          throw new PushError(line, `market '${row.market}' is not a market name (letters, digits and _, starting with a letter)`);
        }
        counter.checkMarket(row.market, line);
        if (!isTimeframe(timeframe)) throw new PushError(line, `timeframe: ${unknownTimeframeMessage(timeframe, TIMEFRAMES)}`);
        // `crypto` and `CRYPTO` are one market: one batch, so a bar sent under both spellings is a duplicate.
        batch = [...batches.values()].find((b) => b.market === market && b.timeframe === timeframe) ?? new BarRowBatch(market, timeframe, now, new CountedSink(counter, market, timeframe));
        batches.set(key, batch);
      }
      batch.add(row, line);
    }
    await counter.read(line);
  }
  if (batches.size === 0) throw new PushError(0, "the body holds no bars");
  return [...new Set(batches.values())].map((batch) => batch.finish());
}

/** One NDJSON line as a row: an object with every field, numbers (or decimal text) where numbers go. */
function ndjsonRow(raw: string, line: number): BarRow & { market: string; timeframe: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new PushError(line, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PushError(line, `expected an object {${NDJSON_FIELDS.map((f) => `"${f}"`).join(", ")}}`);
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  // Nine keys, all known: every field is there (the usual line, checked in one pass).
  if (keys.length !== NDJSON_FIELDS.length || !keys.every((k) => FIELD_SET.has(k))) {
    for (const field of NDJSON_FIELDS) {
      if (!Object.hasOwn(object, field)) throw new PushError(line, `${field} is missing`);
    }
    const extra = keys.filter((k) => !FIELD_SET.has(k));
    throw new PushError(line, `unknown field ${JSON.stringify(extra[0])} (fields: ${NDJSON_FIELDS.join(", ")})`);
  }
  for (const field of ["market", "timeframe", "symbol"] as const) {
    if (typeof object[field] !== "string") throw new PushError(line, `${field} must be a string, found ${JSON.stringify(object[field])}`);
  }
  for (const field of BAR_COLUMNS) {
    const v = object[field];
    if (typeof v !== "number" && typeof v !== "string") {
      throw new PushError(line, `${field} must be a number${field === "time" ? " (ms since the epoch) or ISO 8601 text" : " (or decimal text)"}, found ${JSON.stringify(v)}`);
    }
    // Rows travel on as CSV lines: a comma inside decimal text ('1,5') is refused here in the
    // push's own words, not as a CSV field holding a comma.
    if (typeof v === "string" && v.includes(",") && field !== "time") throw new PushError(line, `${field} '${v}' is not a finite number`);
  }
  return object as unknown as BarRow & { market: string; timeframe: string };
}
