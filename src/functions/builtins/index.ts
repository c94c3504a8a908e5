/**
 * The list of built-in modules the registry is built from, in documentation order.
 * Adding a built-in: one module file here plus its test file beside the others in
 * `test/functions/builtins/`, and one line in this list.
 */
import type { FunctionModule } from "../module.js";
import { kama } from "./kama.js";
import { hma } from "./hma.js";
import { supertrend } from "./supertrend.js";
import { bb_percent } from "./bb_percent.js";
import { obv } from "./obv.js";
import { vwap } from "./vwap.js";

export const MODULES: readonly FunctionModule[] = [
  kama,
  hma,
  supertrend,
  bb_percent,
  obv,
  vwap,
];
