/**
 * Every indicator kernel, by the name the registry (`../registry.ts`) refers to it with.
 * Nothing here imports the registry: the registry imports this module.
 */
import type { Kernel, KernelName } from "../kernel.js";
import { abs } from "./abs.js";
import { atr } from "./atr.js";
import { bb_lower } from "./bb_lower.js";
import { bb_upper } from "./bb_upper.js";
import { change } from "./change.js";
import { crossover } from "./crossover.js";
import { crossunder } from "./crossunder.js";
import { ema } from "./ema.js";
import { highest } from "./highest.js";
import { lowest } from "./lowest.js";
import { macd } from "./macd.js";
import { macd_hist } from "./macd_hist.js";
import { macd_signal } from "./macd_signal.js";
import { max } from "./max.js";
import { min } from "./min.js";
import { roc } from "./roc.js";
import { rsi } from "./rsi.js";
import { sma } from "./sma.js";
import { stdev } from "./stdev.js";
import { wma } from "./wma.js";

export const kernels = {
  sma,
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
} satisfies Record<KernelName, Kernel>;
