/**
 * The conformance corpus as data (jsonata's test suite is the model): each `*.json` beside this
 * file holds cases `{ name, query, source, data | bars, result | error }`.
 *
 * - `data` names a small committed data set of ./data/ (bars written out, one
 *   `[open, high, low, close, volume]` row per bar from `start`), or `{ talib, symbols }`:
 *   instruments made of the first N bars of a TA-Lib fixture (test/reference/fixtures), one per
 *   symbol; `bars` carries a data set inline.
 * - `result` is the body of a run, `error` the 400 body of a query that is not valid.
 * - `source` says where the expected body comes from: worked by hand (the derivation is
 *   written there), docs/errors.md for error bodies, or, for the cases over the TA-Lib
 *   fixtures, TA-Lib's outputs and decisions §1's definitions computed by ./oracle.ts —
 *   never the library under test.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TIMEFRAME_MS, type Bars, type Instrument, type Timeframe } from "../../src/types.js";
import { oracleColumn } from "./oracle.js";

export const HERE = fileURLToPath(new URL(".", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../reference/fixtures/", import.meta.url));

/** One timeframe of one instrument, written out: rows `[open, high, low, close, volume]` from `start`. */
export interface WrittenBars {
  readonly start: string;
  readonly bars: readonly (readonly [number, number, number, number, number])[];
}

/** A data set: a market and its instruments' bars by timeframe. */
export interface DataSet {
  readonly description?: string;
  readonly market: string;
  readonly instruments: Readonly<Record<string, Partial<Record<Timeframe, WrittenBars>>>>;
}

/** Instruments made of the first `symbols[s]` bars of a TA-Lib fixture. */
export interface FixtureData {
  readonly talib: string;
  readonly symbols: Readonly<Record<string, number>>;
}

export interface RunBody {
  readonly results: { readonly symbol: string; readonly columns: Readonly<Record<string, number | null>> }[];
  readonly meta: {
    readonly instruments: number;
    readonly matched: number;
    readonly skipped: { readonly shortHistory: number; readonly noData: number };
    readonly asOf: string | null;
  };
}

export interface Case {
  readonly name: string;
  readonly query: string;
  readonly source: string;
  readonly data?: string | FixtureData;
  readonly bars?: DataSet;
  readonly result?: RunBody;
  readonly error?: unknown;
}

export interface CaseFile {
  readonly file: string;
  readonly description: string;
  readonly cases: Case[];
}

export const corpus: CaseFile[] = readdirSync(HERE)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(join(HERE, file), "utf8")) as Omit<CaseFile, "file">) }));

const dataSets = new Map<string, DataSet>(
  readdirSync(join(HERE, "data"))
    .filter((f) => f.endsWith(".json"))
    .map((f) => [f.replace(/\.json$/, ""), JSON.parse(readFileSync(join(HERE, "data", f), "utf8")) as DataSet]),
);

interface Fixture {
  readonly bars: Record<keyof Bars, number[]>;
  readonly cases: { readonly call: string; readonly output: (number | null)[] }[];
}
const fixtures = new Map<string, Fixture>();
function fixture(name: string): Fixture {
  let f = fixtures.get(name);
  if (!f) fixtures.set(name, (f = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8")) as Fixture));
  return f;
}

function written(b: WrittenBars, timeframe: Timeframe): Bars {
  const start = Date.parse(b.start);
  const column = (k: number): number[] => b.bars.map((row) => row[k]!);
  return {
    time: b.bars.map((_, i) => start + i * TIMEFRAME_MS[timeframe]),
    open: column(0),
    high: column(1),
    low: column(2),
    close: column(3),
    volume: column(4),
  };
}

/** The market and instruments a case runs over. */
export function instrumentsOf(c: Case): { market: string; instruments: Instrument[] } {
  if (c.bars || typeof c.data === "string") {
    const set = c.bars ?? dataSets.get(c.data as string);
    if (!set) throw new Error(`case ${c.name}: no data set '${String(c.data)}' in test/conformance/data`);
    const instruments = Object.entries(set.instruments).map(([symbol, byTimeframe]) => ({
      symbol,
      bars: Object.fromEntries(Object.entries(byTimeframe).map(([tf, b]) => [tf, written(b!, tf as Timeframe)])),
    }));
    return { market: set.market, instruments };
  }
  if (c.data) {
    const f = fixture(c.data.talib);
    const instruments = Object.entries(c.data.symbols).map(([symbol, n]) => ({
      symbol,
      bars: { h1: Object.fromEntries(Object.entries(f.bars).map(([k, v]) => [k, v.slice(0, n)])) as unknown as Bars },
    }));
    return { market: "CRYPTO", instruments };
  }
  throw new Error(`case ${c.name}: give data or bars`);
}

/** The column texts of a query's `columns = [...]` line, split at top-level commas. */
export function columnsOf(query: string): string[] {
  const line = query.split("\n").find((l) => l.startsWith("columns = ["));
  if (!line) return [];
  const inner = line.slice("columns = [".length, line.lastIndexOf("]"));
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === "(") depth++;
    else if (inner[i] === ")") depth--;
    else if (inner[i] === "," && depth === 0) {
      out.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(inner.slice(start).trim());
  return out;
}

/**
 * The body a case over a TA-Lib fixture must give, computed without the library: for each
 * instrument (first N bars) and column, TA-Lib's output at bar N − 1 when the fixture holds the
 * call, else the oracle's value; an instrument with fewer bars than the largest lookback is
 * skipped for short history (TA-Lib's first output is at L − 1); rows in symbol order (the
 * queries have no sort and the condition `true`).
 */
export function computedResult(c: Case): RunBody {
  const data = c.data as FixtureData;
  const f = fixture(data.talib);
  const columns = columnsOf(c.query);
  const rows: RunBody["results"] = [];
  let shortHistory = 0;
  let asOf = -Infinity;
  const symbols = Object.keys(data.symbols).sort();
  for (const symbol of symbols) {
    const n = data.symbols[symbol]!;
    const bars = Object.fromEntries(Object.entries(f.bars).map(([k, v]) => [k, Float64Array.from(v.slice(0, n))])) as unknown as Parameters<typeof oracleColumn>[1];
    let lookback = 1;
    const values: Record<string, number | null> = {};
    for (const column of columns) {
      const talib = f.cases.find((k) => k.call === column);
      if (talib) {
        lookback = Math.max(lookback, talib.output.findIndex((v) => v !== null) + 1);
        values[column] = talib.output[n - 1] ?? null;
      } else {
        const o = oracleColumn(column, bars);
        lookback = Math.max(lookback, o.lookback);
        const v = o.values[n - 1]!;
        values[column] = Number.isFinite(v) ? v : null;
      }
    }
    if (n < lookback) {
      shortHistory++;
      continue;
    }
    asOf = Math.max(asOf, f.bars.time[n - 1]!);
    rows.push({ symbol, columns: values });
  }
  return {
    results: rows,
    meta: {
      instruments: symbols.length,
      matched: rows.length,
      skipped: { shortHistory, noData: 0 },
      asOf: asOf === -Infinity ? null : new Date(asOf).toISOString(),
    },
  };
}
