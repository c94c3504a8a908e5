/**
 * The contract between the evaluator and an indicator kernel.
 *
 * A kernel fills `out[i]` for every `i` in `[from, to)` (to exclusive). Its series inputs are
 * full-length arrays of the same length as `out` (one slot per bar of the timeframe being
 * evaluated, oldest first). A windowed kernel may read inputs only in
 * `[from - extraLookback, to)`; a recursive kernel (EMA, RSI, ATR, MACD) may read `[0, to)`
 * and warms up from the first index where its input is not NaN. Where a value is undefined
 * (not enough history, NaN input) the kernel writes NaN. Boolean results are 1 or 0, never NaN.
 *
 * Kernels allocate nothing: they are tight loops over typed arrays.
 */
export type { Kernel, KernelContext } from "./module.js";

/** Every built-in with a kernel of its own (`avg` shares `sma`'s). */
export type KernelName =
  | "sma"
  | "ema"
  | "wma"
  | "rsi"
  | "highest"
  | "lowest"
  | "crossover"
  | "crossunder"
  | "atr"
  | "stdev"
  | "bb_upper"
  | "bb_lower"
  | "macd"
  | "macd_signal"
  | "macd_hist"
  | "roc"
  | "change"
  | "abs"
  | "min"
  | "max";
