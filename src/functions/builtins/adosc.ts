import { convergenceBars, type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * Chaikin A/D oscillator (TA-Lib ADOSC): ema(ad, fast) − ema(ad, slow) of the
 * accumulation/distribution line (`ad`). As in TA-Lib, both EMAs (alpha = 2/(period + 1)) start
 * from the first A/D value rather than from a mean, run from the first bar, and the first value
 * is reported at bar max(fast, slow) − 1. The updates are written TA-Lib's way,
 * k·ad + (1 − k)·ema: the oscillator is a small difference of two large running totals, so
 * the same rounding keeps it equal to TA-Lib's. Inputs are the implicit
 * [high, low, close, volume]; consts [fast, slow].
 *
 * Recursive: streams from the first bar f with all four inputs defined; a NaN after that
 * poisons both averages.
 *
 * Resumable: state [bar, ad, fast and slow EMA, first output bar], from its first output on.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const volume = inputs[3]!;
  const fastK = 2 / (consts[0]! + 1);
  const slowK = 2 / (consts[1]! + 1);
  let ad = 0;
  let fast = 0;
  let slow = 0;
  let i: number;
  let f: number;
  let start: number;
  if (resumes(state, from)) {
    ad = state![1]!;
    fast = state![2]!;
    slow = state![3]!;
    start = state![4]!;
    f = -1;
    i = from;
  } else {
    f = 0;
    while (f < to && (high[f]! !== high[f]! || low[f]! !== low[f]! || close[f]! !== close[f]! || volume[f]! !== volume[f]!)) f++;
    start = f + Math.max(consts[0]!, consts[1]!) - 1;
    for (let j = from; j < to && j < start; j++) out[j] = NaN;
    if (start >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    i = f;
  }
  for (; i < to; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const c = close[i]!;
    const range = h - l;
    if (range > 0) ad += (((c - l) - (h - c)) / range) * volume[i]!;
    // TA-Lib's AD skips a bar without a positive range, so a NaN there is checked apart.
    else if (range !== range || c !== c || volume[i]! !== volume[i]!) ad = NaN;
    if (i === f) {
      fast = ad;
      slow = ad;
    } else {
      fast = fastK * ad + (1 - fastK) * fast;
      slow = slowK * ad + (1 - slowK) * slow;
    }
    if (i >= start && i >= from) out[i] = fast - slow;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = ad;
    state[2] = fast;
    state[3] = slow;
    state[4] = start;
  }
};

export const adosc: FunctionModule = {
  name: "adosc",
  params: [
    { name: "fast", kind: "length" },
    { name: "slow", kind: "length" },
  ],
  result: "number",
  column: "volume",
  implicit: ["high", "low", "close", "volume"],
  extraLookback: (k) => Math.max(k[0]!, k[1]!) - 1,
  lookbackDoc: "max(fast, slow)",
  recursive: true,
  // The A/D line's own start cancels in the difference; only the EMAs' seeds need forgetting.
  warmup: (k) => convergenceBars(2 / (Math.max(k[0]!, k[1]!) + 1)),
  kernel,
  stateSize: () => 5,
  doc: "Chaikin A/D oscillator: ema(ad, fast) − ema(ad, slow), both EMAs started from the first A/D value.",
  example: "adosc(3, 10) > 0",
  reference: "TA-Lib ADOSC",
  phrases: [
    {
      category: "Volume",
      phrase: "Chaikin oscillator positive (buying pressure)",
      query: "adosc(3, 10) > 0",
      aliases: ["chaikin oscillator"],
      notes: "The 3-bar EMA of the A/D line is above its 10-bar EMA: accumulation is accelerating.",
    },
  ],
};
