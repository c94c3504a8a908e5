import { convergenceBars, type FunctionModule, type Kernel, resumes } from "../module.js";

/** Smoothing constants of Kaufman's defaults: an EMA of 30 bars when choppy, of 2 when trending. */
const SLOW = 2 / (30 + 1);
const FAST_MINUS_SLOW = 2 / (2 + 1) - SLOW;

/**
 * Kaufman adaptive moving average (TA-Lib KAMA, fast 2, slow 30): the efficiency ratio
 * ER = |src − src[n]| / Σ|src − src[1]| over the last n changes (1 for a straight move, near 0
 * for noise) sets the smoothing constant sc = (ER·(2/3 − 2/31) + 2/31)², and
 * kama += sc·(src − kama). Seeded, as TA-Lib does, with the value one bar before the first
 * output, so the first KAMA is at bar n. A window without any change (a flat market) has
 * ER = 1, TA-Lib's choice for 0/0.
 *
 * TA-Lib keeps Σ|change| as a plain running sum and treats it as zero below 1e-14: after a
 * spike leaves the window its residue is not zero, so on a flat stretch at large prices TA-Lib
 * computes ER = 0 from the residue, and on a genuinely tiny market (changes below 1e-14) it
 * takes ER = 1. Here the running sum is kept as an unevaluated pair s + c updated with Knuth's
 * TwoSum (error-free addition, as in `sma`), which stays within an ulp or two of the window's
 * exact sum, and a count of the non-zero changes in the window says exactly when nothing moved.
 * Those bars are where XQL and TA-Lib differ, and XQL is the exact one.
 *
 * Recursive: streams from the input's first defined value f (the first KAMA at f + n); a NaN
 * after that poisons the average. Resumable: state [bar, kama, the window's path as sum and
 * carry, its moving changes], carried from the first KAMA on.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i: number;
  let k: number;
  // The window's absolute changes as sum + carry, and how many of them are not 0.
  let sum = 0;
  let carry = 0;
  let moving = 0;
  if (resumes(state, from)) {
    i = from;
    k = state![1]!;
    sum = state![2]!;
    carry = state![3]!;
    moving = state![4]!;
  } else {
    let f = 0;
    while (f < to && x[f]! !== x[f]!) f++;
    const start = f + n;
    for (let j = from; j < to && j < start; j++) out[j] = NaN;
    if (start >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    k = x[start - 1]!;
    // The first n − 1 changes before the loop; the newest added and the oldest removed each bar.
    for (let j = f + 1; j < start; j++) {
      const v = Math.abs(x[j]! - x[j - 1]!);
      if (v !== 0) moving++;
      const t = sum + v;
      const bp = t - sum;
      carry += sum - (t - bp) + (v - bp);
      sum = t;
    }
    i = start;
  }
  for (; i < to; i++) {
    const v = Math.abs(x[i]! - x[i - 1]!);
    if (v !== 0) moving++;
    let t = sum + v;
    let bp = t - sum;
    carry += sum - (t - bp) + (v - bp);
    sum = t;

    const path = sum + carry;
    const direction = Math.abs(x[i]! - x[i - n]!);
    // Math.min keeps a rounding excess of |direction| over the path at ER = 1; NaN propagates.
    const er = moving === 0 ? 1 : Math.min(direction / path, 1);
    let sc = er * FAST_MINUS_SLOW + SLOW;
    sc *= sc;
    k += (x[i]! - k) * sc;
    if (i >= from) out[i] = k;

    const w = -Math.abs(x[i - n + 1]! - x[i - n]!);
    if (w !== 0) moving--;
    t = sum + w;
    bp = t - sum;
    carry += sum - (t - bp) + (w - bp);
    sum = t;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = k;
    state[2] = sum;
    state[3] = carry;
    state[4] = moving;
  }
};

export const kama: FunctionModule = {
  name: "kama",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "L(src) + n",
  recursive: true,
  // The slowest the average can run is sc = (2/31)²; the seed fades at that rate in a choppy market.
  warmup: () => convergenceBars(SLOW * SLOW),
  kernel,
  stateSize: () => 5,
  doc: "Kaufman adaptive moving average: an EMA whose constant moves between 2 and 30 bars with the efficiency ratio |src − src[n]| / Σ|changes| over n.",
  example: "close > kama(10)",
  reference: "TA-Lib KAMA",
  phrases: [
    {
      category: "Moving averages",
      phrase: "price above Kaufman's adaptive moving average (KAMA)",
      query: "close > kama(10)",
      aliases: ["above kama"],
      notes: "Close above KAMA with a 10-bar efficiency ratio (fast 2, slow 30): the average follows trends quickly and stands still in noise.",
    },
    {
      category: "Moving averages",
      phrase: "KAMA turning up",
      query: "kama(10) > kama(10)[1]",
      notes: "KAMA rose on the last bar; because it barely moves in a choppy market, a rise usually means a trend has started.",
    },
  ],
};
