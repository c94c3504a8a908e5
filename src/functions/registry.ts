/**
 * The function registry: the single source of truth for every built-in. Name resolution and
 * suggestions, type and arity checking, lookback planning, evaluation, `docs/functions.md`
 * and the phrase reference all read it. Adding an indicator is one entry here, one kernel in
 * `kernels/`, and its test.
 */
import type { RawSeries } from "../types.js";
import type { Kernel } from "./kernel.js";
import { kernels } from "./kernels/index.js";
import { MODULES } from "./builtins/index.js";
import type { InputColumn, Phrase } from "./module.js";

export type { ValueType, ParamKind, Param } from "./module.js";
import type { ValueType, Param } from "./module.js";

export interface FunctionSpec {
  readonly name: string;
  readonly params: readonly Param[];
  readonly result: ValueType;
  /** Raw series read from the bars in addition to the series arguments (`atr` reads high, low, close). */
  readonly implicit: readonly InputColumn[];
  /**
   * Bars of history each series input needs beyond the output's own:
   * `L(call) = max(L(input)) + extraLookback(consts)`.
   */
  readonly extraLookback: (consts: readonly number[]) => number;
  /** Recursive functions depend on all history (they warm up on whatever bars are given). */
  readonly recursive: boolean;
  readonly kernel: Kernel;
  /** One line for docs, explanation hints and the phrase reference. */
  readonly doc: string;
  /** A complete condition using the function. */
  readonly example: string;
  /** How `extraLookback` reads, for docs. */
  readonly lookbackDoc: string;
  readonly warmup?: (consts: readonly number[], timeframeMs: number) => number;
  readonly rangeIndependent?: boolean;
  readonly reference?: string;
  readonly phrases?: readonly Phrase[];
}

const src = (fallback: RawSeries = "close"): Param => ({ name: "src", kind: "series", default: fallback });
const series = (name: string): Param => ({ name, kind: "series" });
const length = (name = "n"): Param => ({ name, kind: "length" });
const number = (name: string): Param => ({ name, kind: "number" });

const c = (consts: readonly number[], i: number): number => consts[i] ?? 0;

function windowed(
  name: string,
  kernel: Kernel,
  doc: string,
  example: string,
  fallback: RawSeries = "close",
  leading: Param[] = [src(fallback)],
  rangeIndependent = false,
): FunctionSpec {
  return {
    rangeIndependent,
    name,
    params: [...leading, length()],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0) - 1,
    recursive: false,
    kernel,
    doc,
    example,
    lookbackDoc: "L(src) + n − 1",
  };
}

const macdSlowLookback = (k: readonly number[]): number => Math.max(c(k, 0), c(k, 1)) - 1;

const entries: FunctionSpec[] = [
  windowed("sma", kernels.sma, "Arithmetic mean of the last n values.", "close > sma(200)"),
  windowed(
    "avg",
    kernels.sma,
    "Arithmetic mean of the last n values (the same function as sma, source required).",
    "volume > avg(volume, 20) * 2",
    "close",
    [series("src")],
  ),
  {
    name: "ema",
    params: [src(), length()],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0) - 1,
    recursive: true,
    kernel: kernels.ema,
    doc: "Exponential moving average, alpha = 2/(n+1), seeded with the SMA of the first n values.",
    example: "ema(close, 9) > ema(close, 21)",
    lookbackDoc: "L(src) + n − 1",
  },
  windowed("wma", kernels.wma, "Linearly weighted mean of the last n values (newest weighs n).", "close > wma(20)", "close", [src()], true),
  {
    name: "rsi",
    params: [src(), length()],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0),
    recursive: true,
    kernel: kernels.rsi,
    doc: "Wilder RSI: RMA (alpha = 1/n) of gains and losses, seeded with the mean of the first n changes; 100 when the average loss is 0.",
    example: "rsi(14) < 30",
    lookbackDoc: "L(src) + n",
  },
  windowed(
    "highest",
    kernels.highest,
    "Highest of the last n values, current bar included (source defaults to high).",
    "close >= highest(high, 20)",
    "high",
    [src("high")],
    true,
  ),
  windowed(
    "lowest",
    kernels.lowest,
    "Lowest of the last n values, current bar included (source defaults to low).",
    "close <= lowest(low, 20)",
    "low",
    [src("low")],
    true,
  ),
  {
    name: "crossover",
    rangeIndependent: true,
    params: [series("a"), series("b")],
    result: "boolean",
    implicit: [],
    extraLookback: () => 1,
    recursive: false,
    kernel: kernels.crossover,
    doc: "True when a > b now and a <= b on the previous bar; false where either is undefined.",
    example: "crossover(ema(close, 9), ema(close, 21))",
    lookbackDoc: "max(L(a), L(b)) + 1",
  },
  {
    name: "crossunder",
    rangeIndependent: true,
    params: [series("a"), series("b")],
    result: "boolean",
    implicit: [],
    extraLookback: () => 1,
    recursive: false,
    kernel: kernels.crossunder,
    doc: "True when a < b now and a >= b on the previous bar; false where either is undefined.",
    example: "crossunder(ema(close, 9), ema(close, 21))",
    lookbackDoc: "max(L(a), L(b)) + 1",
  },
  {
    name: "atr",
    params: [length()],
    result: "number",
    implicit: ["high", "low", "close"],
    extraLookback: (k) => c(k, 0),
    recursive: true,
    kernel: kernels.atr,
    doc: "Average true range: Wilder RMA of true range, seeded with the mean of the first n true ranges (first value at bar n).",
    example: "atr(14) > close * 0.01",
    lookbackDoc: "n + 1",
  },
  windowed("stdev", kernels.stdev, "Population standard deviation of the last n values.", "stdev(20) < close * 0.005"),
  {
    name: "bb_upper",
    params: [src(), length(), number("k")],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0) - 1,
    recursive: false,
    kernel: kernels.bb_upper,
    doc: "Upper Bollinger band: sma(src, n) + k · stdev(src, n).",
    example: "close > bb_upper(20, 2)",
    lookbackDoc: "L(src) + n − 1",
  },
  {
    name: "bb_lower",
    params: [src(), length(), number("k")],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0) - 1,
    recursive: false,
    kernel: kernels.bb_lower,
    doc: "Lower Bollinger band: sma(src, n) − k · stdev(src, n).",
    example: "close < bb_lower(20, 2)",
    lookbackDoc: "L(src) + n − 1",
  },
  {
    name: "macd",
    params: [src(), length("fast"), length("slow")],
    result: "number",
    implicit: [],
    extraLookback: macdSlowLookback,
    recursive: true,
    kernel: kernels.macd,
    doc: "MACD line: ema(src, fast) − ema(src, slow).",
    example: "macd(12, 26) > 0",
    lookbackDoc: "L(src) + max(fast, slow) − 1",
  },
  {
    name: "macd_signal",
    params: [src(), length("fast"), length("slow"), length("signal")],
    result: "number",
    implicit: [],
    extraLookback: (k) => macdSlowLookback(k) + c(k, 2) - 1,
    recursive: true,
    kernel: kernels.macd_signal,
    doc: "MACD signal line: the EMA (length signal) of the MACD line.",
    example: "macd(12, 26) > macd_signal(12, 26, 9)",
    lookbackDoc: "L(src) + max(fast, slow) − 1 + signal − 1",
  },
  {
    name: "macd_hist",
    params: [src(), length("fast"), length("slow"), length("signal")],
    result: "number",
    implicit: [],
    extraLookback: (k) => macdSlowLookback(k) + c(k, 2) - 1,
    recursive: true,
    kernel: kernels.macd_hist,
    doc: "MACD histogram: macd − macd_signal.",
    example: "macd_hist(12, 26, 9) > 0",
    lookbackDoc: "L(src) + max(fast, slow) − 1 + signal − 1",
  },
  {
    name: "roc",
    rangeIndependent: true,
    params: [src(), length()],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0),
    recursive: false,
    kernel: kernels.roc,
    doc: "Rate of change in percent: 100 · (src / src[n] − 1).",
    example: "roc(10) > 5",
    lookbackDoc: "L(src) + n",
  },
  {
    name: "change",
    rangeIndependent: true,
    params: [src(), length()],
    result: "number",
    implicit: [],
    extraLookback: (k) => c(k, 0),
    recursive: false,
    kernel: kernels.change,
    doc: "Difference from n bars ago: src − src[n].",
    example: "change(close, 5) > 0",
    lookbackDoc: "L(src) + n",
  },
  {
    name: "abs",
    rangeIndependent: true,
    params: [series("x")],
    result: "number",
    implicit: [],
    extraLookback: () => 0,
    recursive: false,
    kernel: kernels.abs,
    doc: "Absolute value.",
    example: "abs(change(close, 1)) > atr(14)",
    lookbackDoc: "L(x)",
  },
  {
    name: "min",
    rangeIndependent: true,
    params: [series("a"), series("b")],
    result: "number",
    implicit: [],
    extraLookback: () => 0,
    recursive: false,
    kernel: kernels.min,
    doc: "The smaller of a and b.",
    example: "min(open, close) > sma(20)",
    lookbackDoc: "max(L(a), L(b))",
  },
  {
    name: "max",
    rangeIndependent: true,
    params: [series("a"), series("b")],
    result: "number",
    implicit: [],
    extraLookback: () => 0,
    recursive: false,
    kernel: kernels.max,
    doc: "The larger of a and b.",
    example: "max(open, close) < sma(20)",
    lookbackDoc: "max(L(a), L(b))",
  },
];

/** Every built-in function, by name, in documentation order. */
export const FUNCTIONS: ReadonlyMap<string, FunctionSpec> = new Map([...entries, ...MODULES].map((f) => [f.name, f]));

/** The smallest and largest number of arguments a call may have. */
export function arity(fn: FunctionSpec): { min: number; max: number } {
  const optional = fn.params[0]?.default !== undefined ? 1 : 0;
  return { min: fn.params.length - optional, max: fn.params.length };
}

/** Series names: the raw bar columns and the derived price averages. */
export interface SeriesSpec {
  readonly name: string;
  readonly raw: readonly RawSeries[];
  readonly doc: string;
}

export const SERIES: ReadonlyMap<string, SeriesSpec> = new Map(
  (
    [
      { name: "open", raw: ["open"], doc: "Opening price of the bar." },
      { name: "high", raw: ["high"], doc: "Highest price of the bar." },
      { name: "low", raw: ["low"], doc: "Lowest price of the bar." },
      { name: "close", raw: ["close"], doc: "Closing price of the bar (the latest price for a bar in progress)." },
      { name: "volume", raw: ["volume"], doc: "Traded volume of the bar." },
      { name: "hl2", raw: ["high", "low"], doc: "(high + low) / 2." },
      { name: "hlc3", raw: ["high", "low", "close"], doc: "(high + low + close) / 3." },
      { name: "ohlc4", raw: ["open", "high", "low", "close"], doc: "(open + high + low + close) / 4." },
    ] satisfies SeriesSpec[]
  ).map((s) => [s.name, s]),
);
