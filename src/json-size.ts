/**
 * The size in bytes (UTF-8) of the JSON that `JSON.stringify` writes for a result row or a
 * history match, counted without writing it. A screen's answer can be far larger than its
 * inputs (50 columns with long comments in their names, over 1,000 bars of 264 symbols, is
 * 169 MB), so the service counts while the rows are built and refuses before the string
 * exists (decisions §2 "Fair use": 16 MiB). Browser-safe: no Buffer.
 */
import { fail, type XqlError } from "./errors.js";

/** UTF-8 bytes of a string as it is. */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
      continue;
    }
    // A surrogate pair: 2 UTF-16 units, 4 UTF-8 bytes. Anything else (a lone surrogate too,
    // written as U+FFFD) is 3 bytes for 1 unit.
    const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    bytes += 2;
  }
  return bytes;
}

/** UTF-8 bytes of `JSON.stringify(text)`: the quotes and escapes included. */
export function jsonStringBytes(text: string): number {
  return utf8Bytes(JSON.stringify(text));
}

/** Bytes of `JSON.stringify(value)` for a column value: a finite number, or null. */
function jsonValueBytes(value: number | null): number {
  return value === null || !Number.isFinite(value) ? 4 : String(value).length;
}

/**
 * Measures the `columns` object of the rows of one query: the keys are the same in every row,
 * so their bytes are counted once.
 */
export class ColumnsSize {
  private readonly keys: number;
  private readonly count: number;

  constructor(keys: readonly string[]) {
    this.count = keys.length;
    // `{` and `}`, each key with its colon, and the commas between entries.
    let bytes = 2 + Math.max(0, keys.length - 1);
    for (const key of keys) bytes += jsonStringBytes(key) + 1;
    this.keys = bytes;
  }

  /** Bytes of `JSON.stringify(columns)` for a row of this query. */
  bytes(columns: Readonly<Record<string, number | null>>): number {
    let bytes = this.keys;
    let seen = 0;
    for (const key in columns) {
      bytes += jsonValueBytes(columns[key]!);
      seen++;
    }
    return seen === this.count ? bytes : utf8Bytes(JSON.stringify(columns));
  }
}

/** Bytes of `{"time":…,"symbol":…,"columns":{…}}` (a history match) with the comma after it. */
export function matchBytes(time: number, symbol: string, columnsBytes: number): number {
  // {"time": , "symbol": , "columns": } and the separating comma.
  return 8 + String(time).length + 10 + jsonStringBytes(symbol) + 11 + columnsBytes + 1 + 1;
}

/** Bytes of `{"symbol":…,"columns":{…}}` (a run result) with the comma after it. */
export function resultBytes(symbol: string, columnsBytes: number): number {
  return 10 + jsonStringBytes(symbol) + 11 + columnsBytes + 1 + 1;
}

/** 16 MiB: the largest run or history answer the service builds (decisions §2 "Fair use"). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The plan error of an answer whose JSON would exceed `maxBytes`. */
export function responseTooLarge(maxBytes: number): XqlError {
  return fail("response-too-large", { maxBytes });
}

/** Bytes of `JSON.stringify(result.results)` of a run, counted without writing it. */
export function runResultBytes(result: { results: readonly { symbol: string; columns: Readonly<Record<string, number | null>> }[] }): number {
  const first = result.results[0];
  if (!first) return 2;
  const size = new ColumnsSize(Object.keys(first.columns));
  // The brackets, and a comma after every result but the last.
  let bytes = 1;
  for (const row of result.results) bytes += resultBytes(row.symbol, size.bytes(row.columns));
  return bytes;
}
