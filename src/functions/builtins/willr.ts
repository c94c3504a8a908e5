import { highest } from "./highest.js";
import { lowest } from "./lowest.js";
import type { FunctionModule, Kernel } from "../module.js";

/**
 * Williams %R: `−100·(highest(high, n) − close)/(highest(high, n) − lowest(low, n))`, from 0
 * (close at the n-bar high) down to −100 (close at the n-bar low). An n-bar range of zero leaves
 * the position undefined: NaN, where TA-Lib writes 0 (decisions §1: a zero denominator is
 * undefined). Uses scratch buffers 0 and 1 for the window extremes.
 */
const willrKernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  const close = inputs[2]!;
  const n = consts[0]!;
  const hh = ctx.scratch(0, to);
  const ll = ctx.scratch(1, to);
  highest.kernel([inputs[0]!], [n], hh, from, to, ctx);
  lowest.kernel([inputs[1]!], [n], ll, from, to, ctx);
  for (let i = from; i < to; i++) {
    const range = hh[i]! - ll[i]!;
    out[i] = range === 0 ? NaN : (-100 * (hh[i]! - close[i]!)) / range;
  }
};

export const willr: FunctionModule = {
  name: "willr",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([n = 1]) => n - 1,
  lookbackDoc: "n",
  recursive: false,
  kernel: willrKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Williams %R: −100·(highest(high, n) − close)/(highest(high, n) − lowest(low, n)), 0 to −100; undefined while the n-bar range is 0.",
  example: "willr(14) < -80",
  reference: "TA-Lib WILLR; 0-range windows undefined where TA-Lib writes 0",
  phrases: [
    {
      category: "Momentum",
      phrase: "Williams %R oversold",
      query: "willr(14) < -80",
      aliases: ["williams percent r below -80"],
      notes: "Williams %R runs from 0 (close at the 14-bar high) to −100 (at the low); below −80 is the usual oversold zone.",
    },
    {
      category: "Momentum",
      phrase: "Williams %R overbought",
      query: "willr(14) > -20",
      aliases: ["williams percent r above -20"],
      notes: "Williams %R above −20: the close is in the top fifth of its 14-bar range.",
    },
  ],
};
