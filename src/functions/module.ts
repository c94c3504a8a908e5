/**
 * The shape of one built-in function: everything the checker, planner, evaluator, docs,
 * phrase reference and test generators need to know about it, in one value. Each built-in
 * lives in one file under `src/functions/builtins/` that exports a `FunctionModule`; the
 * registry is built from the list in `builtins/index.ts`.
 */
import type { RawSeries, Timeframe } from "../types.js";
import { TIMEFRAMES, TIMEFRAME_MS } from "../types.js";

/** The type of an XQL value: a number series or a boolean series. */
export type ValueType = "number" | "boolean";

/**
 * - `series`: any number-typed expression;
 * - `condition`: any boolean-typed expression (`count(rsi(14) < 30, 10)`);
 * - `length`: a positive integer literal (so lookback is static);
 * - `number`: a number literal, optionally negated (a multiplier such as Bollinger's k).
 */
export type ParamKind = "series" | "condition" | "length" | "number";

/**
 * What a number column holds, which decides how a table shows it to people (docs/service.md,
 * "How the table shows numbers"): `price` in the instrument's price units (open…close, moving
 * averages, bands, levels, ranges), shown to the decimals its prices are quoted in; `oscillator`
 * a bounded indicator read on a 0–100-like scale (rsi, stoch, willr, mfi, adx, cci, …), shown
 * to two decimals; `volume` traded volume or a running total of it, grouped in thousands; and
 * `number` anything else (ratios, percentages, slopes, counts), to six significant digits.
 */
export type ColumnKind = "price" | "oscillator" | "volume" | "number";

/** One parameter of a built-in. */
export interface Param {
  readonly name: string;
  readonly kind: ParamKind;
  /** A leading series parameter with a default may be left out: `sma(20)` is `sma(close, 20)`. */
  readonly default?: RawSeries;
  /**
   * For `length` parameters: the largest value random-query generators (`xql/testing`) pick
   * (default 30). A signal length that adds to another chain may ask for less.
   */
  readonly max?: number;
  /**
   * For `number` parameters: the literals random-query generators pick from (default
   * 0.5, 1, 1.5, 2, 2.5, 3, each sometimes negated). A step such as SAR's 0.02 gives its own.
   */
  readonly samples?: readonly number[];
}

/** A bar column a kernel may read implicitly: the OHLCV series, or the bar open time (ms). */
export type InputColumn = RawSeries | "time";

/** What a kernel may know of where it runs, beyond its inputs. */
export interface KernelContext {
  /** Duration of one bar of the timeframe being evaluated, in ms. */
  readonly timeframeMs: number;
  /** The timeframe being evaluated. */
  readonly timeframe: Timeframe;
  /** The plan's market (`vwap` takes its session from it: FOREX closes at 17:00 New York). */
  readonly market: string;
  /**
   * A scratch buffer of at least `length` slots, owned by the calling slot and reused across
   * instruments (index 0, 1, ... name distinct buffers). Contents are unspecified on entry.
   */
  scratch(index: number, length: number): Float64Array;
}

/**
 * The contract between the evaluator and an indicator kernel.
 *
 * A kernel fills `out[i]` for every `i` in `[from, to)` (to exclusive). Its inputs are the
 * series/condition arguments in parameter order, then the `implicit` columns in the order the
 * module lists them: full-length arrays of the same length as `out` (one slot per bar of the
 * timeframe being evaluated, oldest first). A windowed kernel may read inputs only in
 * `[from - extraLookback, to)`; a recursive kernel may read `[0, to)` and warms up from the
 * first index where its input is not NaN. Where a value is undefined (not enough history, NaN
 * input) the kernel writes NaN. Boolean results are 1 or 0, never NaN; boolean inputs are 1 or 0.
 *
 * Kernels allocate nothing per bar: they are tight loops over typed arrays (scratch space
 * comes from `ctx.scratch`).
 *
 * Resumable kernels (a module with `stateSize`) take an optional `state`: the loop's
 * variables, `stateSize(consts)` slots. Slot 0 is the bar the state is positioned at. When
 * `state[0] === from` the kernel resumes from the state instead of streaming from the first bar
 * (or priming its window); otherwise it computes as without a state. Either way it leaves the
 * state positioned at `to` (or, while it has nothing worth carrying, e.g. a recursion still
 * before its seed, marks it fresh with NaN in slot 0, so the next call starts over). The batch
 * path is a call without a state (or with a fresh one), the stepper (`./stepper.ts`) a call
 * over [t, t + 1) with the state the previous call left: the same loop, hence bit-identical
 * values. The state is loaded and stored at the call's boundaries only, so the loop stays as
 * tight as without one. A kernel that resumes reads its inputs only in
 * [from − extraLookback, to): the carried passes of alerts and `watch` (src/eval/carry.ts)
 * keep no more of them (tested for every resumable module).
 */
export type Kernel = (
  inputs: readonly Float64Array[],
  consts: readonly number[],
  out: Float64Array,
  from: number,
  to: number,
  ctx: KernelContext,
  state?: Float64Array,
) => void;

/** A fresh kernel state (nothing carried yet): no slot holds a bar (NaN), sub-states included. */
export function freshState(size: number): Float64Array {
  return new Float64Array(size).fill(NaN);
}

/**
 * The state of a kernel called by another, `size` slots at `base` of the caller's state (a
 * view, made per call and only when a state is carried), or undefined without one.
 */
export function subState(state: Float64Array | undefined, base: number, size: number): Float64Array | undefined {
  return state?.subarray(base, base + size);
}

/**
 * True when `state` is positioned at bar `from`: the kernel resumes from it. A kernel built of
 * others keeps their states side by side in its own, each at its `base` slot (its slot 0).
 */
export function resumes(state: Float64Array | undefined, from: number, base = 0): boolean {
  return state !== undefined && state[base] === from;
}

/**
 * The groups of the phrase reference, in the order docs/phrases.md lists them. Defined beside
 * a module's phrases, because a module names the group of each of its phrases; the phrase
 * reference (src/phrases/) reads the modules, never the other way round.
 */
export const PHRASE_CATEGORIES = [
  "Momentum",
  "Moving averages",
  "Trend",
  "Pullbacks",
  "MACD",
  "Bollinger bands",
  "Volume",
  "Highs, lows and breakouts",
  "Gaps",
  "Ranges and volatility",
  "Price change and candles",
  "Indicators",
  "Across timeframes",
] as const;

/** One of the {@link PHRASE_CATEGORIES}: the group a phrase entry is listed under. */
export type PhraseCategory = (typeof PHRASE_CATEGORIES)[number];

/** One entry of the phrase-to-query reference (MCP `xql_nl_reference`, docs/phrases.md). */
export interface Phrase {
  /** What a user says: "RSI oversold", "price above the 200-day average". */
  readonly phrase: string;
  /** A condition fragment, with any `let` lines it needs, valid after market and timeframe settings. */
  readonly query: string;
  readonly notes?: string;
  /** Other ways of saying the phrase; the phrase filter matches them too. */
  readonly aliases?: readonly string[];
  /** The group of `docs/phrases.md` it is listed under; default "Indicators". */
  readonly category?: PhraseCategory;
}

/** Everything about one built-in function. */
export interface FunctionModule {
  readonly name: string;
  /** Empty for a zero-parameter built-in, which is written as a bare name (`obv`, `doji`). */
  readonly params: readonly Param[];
  readonly result: ValueType;
  /**
   * The {@link ColumnKind} of the function's column, or `input`: the kind of its series
   * arguments (`sma(close, 20)` is a price, `sma(volume, 20)` a volume, `highest(rsi(14), 5)`
   * an oscillator; arguments of different kinds make a `number`). Conditions are `number`.
   */
  readonly column: ColumnKind | "input";
  /** Columns read from the bars in addition to the arguments (`atr` reads high, low, close). */
  readonly implicit: readonly InputColumn[];
  /**
   * Bars of history beyond the inputs' own: `L(call) = max(L(input)) + extraLookback(consts)`,
   * where an implicit column counts as an input with L = 1 and a call with no input at all
   * has `L = 1 + extraLookback`. `consts` are the length/number arguments in parameter order.
   */
  readonly extraLookback: (consts: readonly number[]) => number;
  /** How the lookback reads, for docs: "L(src) + n − 1". */
  readonly lookbackDoc: string;
  /** True when the kernel depends on all history (it warms up on whatever bars are given). */
  readonly recursive: boolean;
  /**
   * For recursive functions: bars beyond the lookback after which the seed is forgotten to 1e-6
   * relative (EMA-type with alpha a: ⌈ln(1e-6)/ln(1 − a)⌉). Absent for windowed and cumulative
   * functions. `timeframeMs` lets session-anchored functions (`vwap`) ask for one session.
   */
  readonly warmup?: (consts: readonly number[], timeframeMs: number) => number;
  /**
   * For windowed (non-recursive) kernels: true when each value is computed on its own, so it is
   * the same whatever range the kernel is asked for (a direct sum per bar, a maximum, a
   * per-bar formula). Otherwise (running sums) the evaluator runs the kernel over fixed blocks
   * of bars so that values never depend on the range asked; true skips that.
   */
  readonly rangeIndependent?: boolean;
  readonly kernel: Kernel;
  /**
   * For a resumable kernel: the slots of its state (`Kernel`), slot 0 included. Absent when
   * the kernel keeps nothing between bars worth carrying: a per-bar formula or a window
   * recomputed at each bar, whose stepper is the kernel over [t, t + 1) (or, run in primed
   * blocks, over [block start, t + 1)), so still the one definition.
   */
  readonly stateSize?: (consts: readonly number[]) => number;
  /** One line for docs, explanation hints and the phrase reference. */
  readonly doc: string;
  /** A complete condition using the function, valid after market and timeframe settings. */
  readonly example: string;
  /** Where the definition comes from: "TA-Lib RSI", "TradingView ta.hma", "Achelis". */
  readonly reference?: string;
  /** Phrase-reference entries for this function (at least one). */
  readonly phrases: readonly Phrase[];
}

/**
 * A kernel context outside the evaluator (tests, direct kernel calls): fresh scratch buffers
 * kept for the context's lifetime.
 */
export function standaloneContext(timeframeMs = 3_600_000, market = "CRYPTO"): KernelContext {
  const buffers: Float64Array[] = [];
  return {
    timeframeMs,
    timeframe: TIMEFRAMES.find((tf) => TIMEFRAME_MS[tf] === timeframeMs) ?? "h1",
    market,
    scratch(index, length) {
      let b = buffers[index];
      if (!b || b.length < length) buffers[index] = b = new Float64Array(length);
      return b;
    },
  };
}

/**
 * Bars after which an EMA-type recursion with smoothing `alpha` has forgotten its seed to 1e-6
 * relative: ⌈ln(1e-6) / ln(1 − alpha)⌉ (0 when alpha ≥ 1: nothing is remembered).
 */
export function convergenceBars(alpha: number): number {
  if (!(alpha < 1)) return 0;
  return Math.ceil(Math.log(1e-6) / Math.log(1 - alpha));
}
