/**
 * Result rows and their order, one way for `run` and `history`: a row's columns and sort keys
 * are read at one base bar, rows are ordered by the query's sort keys then by symbol (NaN and
 * ±Infinity last), and `limit` keeps the first.
 */
import type { ResultRow } from "../types.js";
import type { Program, Slot } from "./program.js";
import { values } from "./values.js";

/** A row and its sort keys, in the query's sort order. */
export interface RankedRow {
  readonly row: ResultRow;
  readonly keys: number[];
}

/** The row at base bar `t` of the instrument loaded: columns and sort keys (computed there if not yet). */
export function rowAt(program: Program, symbol: string, t: number): RankedRow {
  const at = (slot: Slot): number => values(program, slot, t, t + 1)[t]!;
  return rowOf(
    program,
    symbol,
    (k) => at(program.columns[k]!.slot),
    (k) => at(program.sort[k]!.slot),
  );
}

/**
 * The row of `symbol` whose k-th column and k-th sort key `column(k)` and `key(k)` give: its
 * columns (non-finite values as null) and its sort keys. `rowAt` reads them at a bar; an alert
 * round's step across symbols (round.ts) from its vectors.
 */
export function rowOf(program: Program, symbol: string, column: (k: number) => number, key: (k: number) => number): RankedRow {
  return { row: { symbol, columns: columnsOf(program, column) }, keys: keysOf(program, key) };
}

/** A row's columns: the k-th column's value `column(k)`, null when not finite. */
export function columnsOf(program: Program, column: (k: number) => number): Record<string, number | null> {
  // A plain object, keys added in the query's order: every row of a query shares its shape (an
  // alert round makes tens of thousands). A column written `__proto__` is defined as a key like
  // any other, not assigned (which would set the object's prototype).
  const columns: Record<string, number | null> = {};
  const list = program.columns;
  for (let k = 0; k < list.length; k++) {
    const c = list[k]!;
    const v = column(k);
    const value = Number.isFinite(v) ? v : null;
    if (c.text === "__proto__") Object.defineProperty(columns, c.text, { value, enumerable: true, writable: true, configurable: true });
    else columns[c.text] = value;
  }
  return columns;
}

/** A row's sort keys: the k-th `key(k)`. */
export function keysOf(program: Program, key: (k: number) => number): number[] {
  const sort = program.sort;
  return sort.length === 0 ? NO_KEYS : sort.map((_, k) => key(k));
}

/** The keys of every row of a query without `sort` (never changed). */
const NO_KEYS: number[] = [];

/** The query's order: its sort keys, then the symbol. Negative when a comes first. */
export function order(program: Program, a: readonly number[], aSymbol: string, b: readonly number[], bSymbol: string): number {
  const sort = program.sort;
  for (let k = 0; k < sort.length; k++) {
    const x = a[k]!;
    const y = b[k]!;
    // NaN sorts last whatever the direction (decisions §1). ±Infinity (a division by
    // zero) goes with it: it prints as null like NaN, and a null at the top of a
    // descending sort would bury every real value beneath an undefined one.
    const xn = !Number.isFinite(x);
    const yn = !Number.isFinite(y);
    if (xn || yn) {
      if (xn && yn) continue;
      return xn ? 1 : -1;
    }
    if (x !== y) return sort[k]!.descending ? y - x : x - y;
  }
  return aSymbol < bSymbol ? -1 : aSymbol > bSymbol ? 1 : 0;
}

/** Orders rows as the query's sort says (ties and no sort: by symbol) and applies its limit. */
export function rank<R extends RankedRow>(program: Program, rows: R[]): R[] {
  rows.sort((a, b) => order(program, a.keys, a.row.symbol, b.keys, b.row.symbol));
  const limit = program.limit;
  return limit === undefined ? rows : rows.slice(0, limit);
}

export function bySymbol(a: ResultRow, b: ResultRow): number {
  return a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;
}
