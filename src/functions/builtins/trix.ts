import { ema } from "./ema.js";
import type { FunctionModule, Kernel } from "../module.js";
import { cascadeConvergenceBars } from "../shared/convergence.js";

/**
 * TRIX (Hutson): the one-bar rate of change, in percent, of a triple-smoothed EMA,
 * `100·(e/e[1] − 1)` with e = ema(ema(ema(src, n), n), n). Each EMA is seeded with the SMA of
 * the first n values of the one before (TA-Lib's default), so e is first defined 3n − 3 bars
 * after src and TRIX one bar later. e[1] = 0 is a zero denominator: NaN. With n = 1 each EMA
 * is src itself and TRIX is the one-bar rate of change; TA-Lib's TRIX(1) writes those values
 * six bars early (a misaligned output), so n = 1 is the one length where it is not the reference.
 *
 * Recursive: the three EMAs stream over [0, to) through scratch buffers 0 to 2; only the last
 * is limited to what [from, to) needs.
 */
const trixKernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  const n = consts[0]!;
  const e1 = ctx.scratch(0, to);
  const e2 = ctx.scratch(1, to);
  const e3 = ctx.scratch(2, to);
  ema.kernel([inputs[0]!], [n], e1, 0, to, ctx);
  ema.kernel([e1], [n], e2, 0, to, ctx);
  const lo = Math.max(0, from - 1);
  ema.kernel([e2], [n], e3, lo, to, ctx);
  let i = from;
  if (i === 0 && i < to) out[i++] = NaN;
  for (; i < to; i++) {
    const previous = e3[i - 1]!;
    out[i] = previous === 0 ? NaN : 100 * (e3[i]! / previous - 1);
  }
};

export const trix: FunctionModule = {
  name: "trix",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: ([n = 1]) => 3 * n - 2,
  lookbackDoc: "L(src) + 3n − 2",
  recursive: true,
  warmup: ([n = 1]) => cascadeConvergenceBars(2 / (n + 1), 3),
  kernel: trixKernel,
  doc: "TRIX: 100·(e/e[1] − 1), the one-bar percent change of e = ema(ema(ema(src, n), n), n).",
  example: "crossover(trix(15), 0)",
  reference: "TA-Lib TRIX",
  phrases: [
    {
      category: "Momentum",
      phrase: "TRIX turned positive",
      query: "crossover(trix(15), 0)",
      aliases: ["trix crosses above zero"],
      notes: "The one-bar change of the triple-smoothed 15-bar EMA turns positive on this bar.",
    },
  ],
};
