import { type FunctionModule, type Kernel, resumes } from "../module.js";
import { windowMean } from "../shared/flat.js";
import { cascadeConvergenceBars } from "../shared/convergence.js";

/**
 * Double exponential moving average (Mulloy; TA-Lib DEMA): 2·e1 − e2 with e1 = ema(src, n) and
 * e2 = ema(e1, n). Subtracting the EMA of the EMA removes most of a single EMA's lag. Each EMA
 * is TA-Lib's: alpha = 2/(n+1), seeded with the simple mean of its first n inputs, so e1 starts
 * at bar n − 1, e2 (and DEMA) at bar 2n − 2.
 *
 * Recursive: streams from the input's first defined value f; a NaN after that poisons both
 * averages.
 *
 * Resumable: state [bar, both EMAs], from the first DEMA on.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const alpha = 2 / (n + 1);
  let i: number;
  let e1: number;
  let e2: number;
  if (resumes(state, from)) {
    i = from;
    e1 = state![1]!;
    e2 = state![2]!;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const start = f + 2 * n - 2;
    for (let j = from; j < to && j < start; j++) out[j] = NaN;
    if (start >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    e1 = windowMean(x, f, n);
    // e2's seed: the mean of e1's first n values, bars f + n − 1 .. start (its value when they are equal).
    const e1First = e1;
    let seed = e1;
    let flat = true;
    i = f + n;
    for (; i <= start; i++) {
      e1 += alpha * (x[i]! - e1);
      seed += e1;
      if (e1 !== e1First) flat = false;
    }
    e2 = flat ? e1First : seed / n;
    if (start >= from) out[start] = 2 * e1 - e2;
  }
  for (; i < to; i++) {
    e1 += alpha * (x[i]! - e1);
    e2 += alpha * (e1 - e2);
    if (i >= from) out[i] = 2 * e1 - e2;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = e1;
    state[2] = e2;
  }
};

export const dema: FunctionModule = {
  name: "dema",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => 2 * k[0]! - 2,
  lookbackDoc: "L(src) + 2n − 2",
  recursive: true,
  // The seeds of two EMAs in series fade more slowly than one EMA's (shared/convergence.ts).
  warmup: (k) => cascadeConvergenceBars(2 / (k[0]! + 1), 2),
  kernel,
  stateSize: () => 3,
  doc: "Double EMA: 2·ema(src, n) − ema(ema(src, n), n), each EMA seeded with the mean of its first n inputs.",
  example: "close > dema(20)",
  reference: "TA-Lib DEMA",
  phrases: [
    {
      category: "Moving averages",
      phrase: "price above the double EMA (DEMA)",
      query: "close > dema(20)",
      aliases: ["above dema"],
      notes: "Close above the 20-bar double exponential moving average, 2·ema − ema(ema): a faster average than a plain EMA. Change 20 for a shorter or longer trend.",
    },
  ],
};
