import { type FunctionModule, type Kernel, resumes } from "../module.js";
import { windowMean } from "../shared/flat.js";
import { cascadeConvergenceBars } from "../shared/convergence.js";

/**
 * Triple exponential moving average (Mulloy; TA-Lib TEMA): 3·e1 − 3·e2 + e3 with
 * e1 = ema(src, n), e2 = ema(e1, n), e3 = ema(e2, n) — less lag again than DEMA. Each EMA is
 * TA-Lib's: alpha = 2/(n+1), seeded with the simple mean of its first n inputs, so e1, e2 and
 * e3 start at bars n − 1, 2n − 2 and 3n − 3.
 *
 * Recursive: streams from the input's first defined value f; a NaN after that poisons all
 * three averages.
 *
 * Resumable: state [bar, the three EMAs], from the first TEMA on.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  const alpha = 2 / (n + 1);
  let i: number;
  let e1: number;
  let e2: number;
  let e3: number;
  if (resumes(state, from)) {
    i = from;
    e1 = state![1]!;
    e2 = state![2]!;
    e3 = state![3]!;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const start2 = f + 2 * n - 2;
    const start = f + 3 * n - 3;
    for (let j = from; j < to && j < start; j++) out[j] = NaN;
    if (start >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    e1 = windowMean(x, f, n);
    // Each later EMA is seeded with the mean of the previous one's first n values: their value
    // exactly when they are all equal (a constant series keeps TEMA at its value).
    const e1First = e1;
    let seed2 = e1;
    let flat2 = true;
    i = f + n;
    for (; i <= start2; i++) {
      e1 += alpha * (x[i]! - e1);
      seed2 += e1;
      if (e1 !== e1First) flat2 = false;
    }
    e2 = flat2 ? e1First : seed2 / n;
    const e2First = e2;
    let seed3 = e2;
    let flat3 = true;
    for (; i <= start; i++) {
      e1 += alpha * (x[i]! - e1);
      e2 += alpha * (e1 - e2);
      seed3 += e2;
      if (e2 !== e2First) flat3 = false;
    }
    e3 = flat3 ? e2First : seed3 / n;
    if (start >= from) out[start] = 3 * e1 - 3 * e2 + e3;
  }
  for (; i < to; i++) {
    e1 += alpha * (x[i]! - e1);
    e2 += alpha * (e1 - e2);
    e3 += alpha * (e2 - e3);
    if (i >= from) out[i] = 3 * e1 - 3 * e2 + e3;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = e1;
    state[2] = e2;
    state[3] = e3;
  }
};

export const tema: FunctionModule = {
  name: "tema",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => 3 * k[0]! - 3,
  lookbackDoc: "L(src) + 3n − 3",
  recursive: true,
  // The seeds of three EMAs in series fade more slowly than one EMA's (shared/convergence.ts).
  warmup: (k) => cascadeConvergenceBars(2 / (k[0]! + 1), 3),
  kernel,
  stateSize: () => 4,
  doc: "Triple EMA: 3·e1 − 3·e2 + e3 for e1 = ema(src, n), e2 = ema(e1, n), e3 = ema(e2, n).",
  example: "close > tema(20)",
  reference: "TA-Lib TEMA",
  phrases: [
    {
      category: "Moving averages",
      phrase: "price above the triple EMA (TEMA)",
      query: "close > tema(20)",
      aliases: ["above tema"],
      notes: "Close above the 20-bar triple exponential moving average, which lags even less than DEMA; it overshoots on sharp turns.",
    },
  ],
};
