import { EMA_STATE, ema } from "./ema.js";
import { type FunctionModule, type Kernel, resumes, subState } from "../module.js";
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
const trixKernel: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const n = consts[0]!;
  const e1 = ctx.scratch(0, to);
  const e2 = ctx.scratch(1, to);
  const e3 = ctx.scratch(2, to);
  const s1 = subState(state, 2, EMA_STATE);
  const s2 = subState(state, 2 + EMA_STATE, EMA_STATE);
  const s3 = subState(state, 2 + 2 * EMA_STATE, EMA_STATE);
  // Each EMA reads the one before it, which the scratch buffers hold only for this call: the
  // three resume together (state [bar, the last triple EMA], then their states), or all start over.
  let previous: number;
  let i = from;
  if (resumes(state, from)) {
    ema.kernel([inputs[0]!], [n], e1, from, to, ctx, s1);
    ema.kernel([e1], [n], e2, from, to, ctx, s2);
    ema.kernel([e2], [n], e3, from, to, ctx, s3);
    previous = state![1]!;
  } else {
    if (state !== undefined) state.fill(NaN);
    ema.kernel([inputs[0]!], [n], e1, 0, to, ctx, s1);
    ema.kernel([e1], [n], e2, 0, to, ctx, s2);
    const lo = Math.max(0, from - 1);
    ema.kernel([e2], [n], e3, lo, to, ctx, s3);
    if (i === 0 && i < to) out[i++] = NaN;
    previous = i < to ? e3[i - 1]! : NaN;
  }
  for (; i < to; i++) {
    const e = e3[i]!;
    out[i] = previous === 0 ? NaN : 100 * (e / previous - 1);
    previous = e;
  }
  if (state !== undefined) {
    // Carried once the triple EMA runs (its value before `to` is then defined).
    state[0] = s3 !== undefined && s3[0] === to ? to : NaN;
    state[1] = to > 0 ? e3[to - 1]! : NaN;
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
  stateSize: () => 2 + 3 * EMA_STATE,
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
