/**
 * The function registry: the single source of truth for every built-in. Name resolution and
 * suggestions, type and arity checking, lookback planning, evaluation, `docs/functions.md`
 * and the phrase reference all read it. It is built from the modules listed in
 * `builtins/index.ts`; adding a built-in is a module file, its test, its conformance column and
 * `npm run gen` (docs/functions.md, "Add a built-in", lists every step).
 */
import type { RawSeries } from "../types.js";
import { MODULES } from "./builtins/index.js";
import { typicalPrice } from "./shared/flat.js";
import type { ColumnKind, FunctionModule } from "./module.js";

export type { ValueType, ParamKind, Param, FunctionModule, ColumnKind } from "./module.js";

/** A registered built-in: its module. */
export type FunctionSpec = FunctionModule;

function build(modules: readonly FunctionModule[]): ReadonlyMap<string, FunctionSpec> {
  const map = new Map<string, FunctionSpec>();
  for (const m of modules) {
    if (map.has(m.name)) throw new Error(`internal: built-in '${m.name}' is listed twice in src/functions/builtins/index.ts`);
    const defaults = m.params.filter((p) => p.default !== undefined);
    if (defaults.length > 1 || (defaults.length === 1 && m.params[0]!.default === undefined)) {
      throw new Error(`internal: built-in '${m.name}': only a leading series parameter may have a default`);
    }
    map.set(m.name, m);
  }
  return map;
}

/** Every built-in function, by name, in documentation order. */
export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = build(MODULES);

/** The smallest and largest number of arguments a call may have. */
export function arity(fn: FunctionSpec): { min: number; max: number } {
  const optional = fn.params[0]?.default !== undefined ? 1 : 0;
  return { min: fn.params.length - optional, max: fn.params.length };
}

/**
 * A series name: a raw bar column (`close`) or a price average derived from raw columns
 * (`hl2`). The evaluator knows no series by name: it reads `raw` and, for a derived series,
 * calls `combine`.
 */
export interface SeriesSpec {
  readonly name: string;
  /** The raw columns read, in the order `combine` receives them. */
  readonly raw: readonly RawSeries[];
  readonly doc: string;
  /** How a table shows it: the price series are prices, `volume` a volume. */
  readonly column: ColumnKind;
  /**
   * For a derived series: writes `out[i]` for `i` in `[from, to)` from the `raw` columns
   * (given in `raw` order). Absent for a raw column, which is its own value.
   */
  readonly combine?: (columns: readonly Float64Array[], out: Float64Array, from: number, to: number) => void;
}

const rawColumn = (name: RawSeries, doc: string): SeriesSpec => ({ name, raw: [name], doc, column: name === "volume" ? "volume" : "price" });

export const SERIES: ReadonlyMap<string, SeriesSpec> = new Map(
  (
    [
      rawColumn("open", "Opening price of the bar."),
      rawColumn("high", "Highest price of the bar."),
      rawColumn("low", "Lowest price of the bar."),
      rawColumn("close", "Closing price of the bar (the latest price for a bar in progress)."),
      rawColumn("volume", "Traded volume of the bar."),
      {
        name: "hl2",
        column: "price",
        raw: ["high", "low"],
        doc: "(high + low) / 2.",
        combine: ([h, l], out, from, to) => {
          for (let i = from; i < to; i++) out[i] = (h![i]! + l![i]!) / 2;
        },
      },
      {
        name: "hlc3",
        column: "price",
        raw: ["high", "low", "close"],
        doc: "(high + low + close) / 3.",
        combine: ([h, l, c], out, from, to) => {
          for (let i = from; i < to; i++) out[i] = typicalPrice(h![i]!, l![i]!, c![i]!);
        },
      },
      {
        name: "ohlc4",
        column: "price",
        raw: ["open", "high", "low", "close"],
        doc: "(open + high + low + close) / 4.",
        combine: ([o, h, l, c], out, from, to) => {
          // Four equal prices average to that price exactly (their rounded sum need not be 4x).
          for (let i = from; i < to; i++) {
            const x = c![i]!;
            out[i] = o![i] === x && h![i] === x && l![i] === x ? x : (o![i]! + h![i]! + l![i]! + x) / 4;
          }
        },
      },
    ] satisfies SeriesSpec[]
  ).map((s) => [s.name, s]),
);
