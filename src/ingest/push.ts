/**
 * Bars pushed by a feed (`POST /xql/bars`, decisions §6): CSV in any import format, or NDJSON
 * with one bar per line. Every row is checked by the import's rules before anything is
 * written; the first bad one is reported by its line (and the field, in the message), and the
 * whole push is refused. Bars still open are left out, not refused: a feed may send its
 * current bar with the closed ones.
 */
import { assertNever } from "../errors.js";
import { CsvImportError, normalizeMarket, parseBarsCsv } from "./csv.js";
import { IMPORT_FORMATS, type ImportFormat, type TimeFormat } from "./formats.js";
import { BarRowBatch, type BarRow, type ClosedBars, closedBarsOnly } from "./rows.js";
import { unknownTimeframeMessage } from "../suggest.js";
import { TIMEFRAMES, isTimeframe } from "../types.js";

/** The body kinds a push may have. */
export type PushFormat = "csv" | "ndjson";

/** The fields of one NDJSON line, in the order the messages list them. */
export const NDJSON_FIELDS = ["market", "timeframe", "symbol", "time", "open", "high", "low", "close", "volume"] as const;

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

/**
 * Checks a pushed body and gives the batches to write (closed bars only) with the count of
 * open bars left out; `now` decides both which bars are open and how far ahead a time may be.
 *
 * @throws CsvImportError (a {@link PushError} for what only a push can get wrong) naming the
 * first bad line, or what is missing from the request.
 */
export function parsePush(format: PushFormat, text: string, options: CsvPushOptions, now: number): ClosedBars {
  switch (format) {
    case "csv":
      return closedBarsOnly([parseCsvPush(text, options, now)], now);
    case "ndjson":
      return closedBarsOnly(parseNdjsonPush(text, now), now);
    default:
      return assertNever(format, "push format");
  }
}

function parseCsvPush(text: string, options: CsvPushOptions, now: number) {
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
    return parseBarsCsv(text, {
      market: options.market,
      timeframe: options.timeframe,
      symbol: options.symbol,
      now,
      format: options.format as ImportFormat | undefined,
      tz: options.tz,
      columns: options.columns?.split(",").map((c) => c.trim()),
      timeFormat: options.timeFormat as TimeFormat | undefined,
    });
  } catch (error) {
    if (error instanceof CsvImportError) throw new PushError(error.line, error.reason === "the file holds no bars" ? "the body holds no bars" : error.reason);
    // The parser speaks to the command line ("give --symbol S"); a push gives its options in the query string.
    if (error instanceof Error) throw new PushError(0, inQueryWords(error.message));
    throw error;
  }
}

/** `give --symbol S` → `give ?symbol=`: an import message in the words of a push's query string. */
function inQueryWords(message: string): string {
  return message.replace(/--(market|timeframe|symbol|tz|format|columns|time-format)(?: (?:S|M|TF|ZONE|F)(?!\w))?/g, (_, name: string) =>
    `?${name === "time-format" ? "timeFormat" : name}=`,
  );
}

function parseNdjsonPush(text: string, now: number) {
  const batches = new Map<string, BarRowBatch>();
  const lines = text.split(/\r\n|\n|\r/);
  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    const raw = lines[index]!.trim();
    if (raw === "") continue;
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
      if (!isTimeframe(timeframe)) throw new PushError(line, `timeframe: ${unknownTimeframeMessage(timeframe, TIMEFRAMES)}`);
      // `crypto` and `CRYPTO` are one market: one batch, so a bar sent under both spellings is a duplicate.
      batch = [...batches.values()].find((b) => b.market === market && b.timeframe === timeframe) ?? new BarRowBatch(market, timeframe, now);
      batches.set(key, batch);
    }
    batch.add(row, line);
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
  for (const field of ["time", "open", "high", "low", "close", "volume"] as const) {
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
