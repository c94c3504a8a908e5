/**
 * The list of built-in modules the registry is built from, in documentation order.
 * Adding a built-in: one module file here plus its test file beside the others in
 * `test/functions/builtins/`, and one line in this list.
 */
import type { FunctionModule } from "../module.js";
import { dema } from "./dema.js";
import { tema } from "./tema.js";
import { trima } from "./trima.js";
import { kama } from "./kama.js";
import { hma } from "./hma.js";
import { vwma } from "./vwma.js";
import { linreg } from "./linreg.js";
import { linreg_slope } from "./linreg_slope.js";
import { sar } from "./sar.js";
import { supertrend } from "./supertrend.js";
import { tenkan } from "./tenkan.js";
import { kijun } from "./kijun.js";
import { senkou_a } from "./senkou_a.js";
import { senkou_b } from "./senkou_b.js";
import { natr } from "./natr.js";
import { tr } from "./tr.js";
import { kc_upper } from "./kc_upper.js";
import { kc_lower } from "./kc_lower.js";
import { bb_width } from "./bb_width.js";
import { bb_percent } from "./bb_percent.js";
import { obv } from "./obv.js";
import { ad } from "./ad.js";
import { adosc } from "./adosc.js";
import { cmf } from "./cmf.js";
import { vwap } from "./vwap.js";
import { sum } from "./sum.js";
import { zscore } from "./zscore.js";
import { correl } from "./correl.js";
import { percent_rank } from "./percent_rank.js";

export const MODULES: readonly FunctionModule[] = [
  dema,
  tema,
  trima,
  kama,
  hma,
  vwma,
  linreg,
  linreg_slope,
  sar,
  supertrend,
  tenkan,
  kijun,
  senkou_a,
  senkou_b,
  natr,
  tr,
  kc_upper,
  kc_lower,
  bb_width,
  bb_percent,
  obv,
  ad,
  adosc,
  cmf,
  vwap,
  sum,
  zscore,
  correl,
  percent_rank,
];
