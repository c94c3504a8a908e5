/**
 * The list of built-in modules the registry is built from, in documentation order.
 * Adding a built-in: one module file here plus its test file beside the others in
 * `test/functions/builtins/`, and one line in this list (docs/architecture.md, "Adding a
 * built-in").
 */
import type { FunctionModule } from "../module.js";
import { sma } from "./sma.js";
import { avg } from "./avg.js";
import { ema } from "./ema.js";
import { wma } from "./wma.js";
import { rsi } from "./rsi.js";
import { highest } from "./highest.js";
import { lowest } from "./lowest.js";
import { crossover } from "./crossover.js";
import { crossunder } from "./crossunder.js";
import { atr } from "./atr.js";
import { stdev } from "./stdev.js";
import { bb_upper } from "./bb_upper.js";
import { bb_lower } from "./bb_lower.js";
import { macd } from "./macd.js";
import { macd_signal } from "./macd_signal.js";
import { macd_hist } from "./macd_hist.js";
import { roc } from "./roc.js";
import { change } from "./change.js";
import { abs } from "./abs.js";
import { min } from "./min.js";
import { max } from "./max.js";

export const MODULES: readonly FunctionModule[] = [
  sma,
  avg,
  ema,
  wma,
  rsi,
  highest,
  lowest,
  crossover,
  crossunder,
  atr,
  stdev,
  bb_upper,
  bb_lower,
  macd,
  macd_signal,
  macd_hist,
  roc,
  change,
  abs,
  min,
  max,
];
