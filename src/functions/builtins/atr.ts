import { convergenceBars, type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * Average true range (Wilder; TA-Lib ATR): TR[i] = max(high − low, |high − close[i−1]|,
 * |low − close[i−1]|) from the second bar on; the first ATR, at bar n, is the mean of
 * TR[1..n]; then Wilder's RMA, atr += (TR − atr)/n. Inputs are the implicit [high, low, close].
 *
 * Recursive: streams from the first bar f with high, low and close all defined (the first ATR
 * is at f + n) and writes [from, to); a later NaN poisons the average. Resumable: state [bar,
 * atr], carried once seeded.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const n = consts[0]!;
  const inv = 1 / n;
  let i: number;
  let a: number;
  if (resumes(state, from)) {
    i = from;
    a = state![1]!;
  } else {
    let f = 0;
    while (f < to && (high[f]! !== high[f]! || low[f]! !== low[f]! || close[f]! !== close[f]!)) f++;
    const seedAt = f + n;
    for (let j = from; j < to && j < seedAt; j++) out[j] = NaN;
    if (seedAt >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    // The seed is the mean of the first n true ranges, exactly their common value when they are
    // all equal (bars that repeat one range keep their ATR at that range, as on a flat window).
    const first = trueRange(high[f + 1]!, low[f + 1]!, close[f]!);
    let sum = 0;
    let flat = first - first === 0;
    for (let j = f + 1; j <= seedAt; j++) {
      const tr = trueRange(high[j]!, low[j]!, close[j - 1]!);
      sum += tr;
      if (tr !== first) flat = false;
    }
    a = flat ? first : sum / n;
    if (seedAt >= from) out[seedAt] = a;
    i = seedAt + 1;
    for (; i < from; i++) a += (trueRange(high[i]!, low[i]!, close[i - 1]!) - a) * inv;
  }
  for (; i < to; i++) {
    a += (trueRange(high[i]!, low[i]!, close[i - 1]!) - a) * inv;
    out[i] = a;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = a;
  }
};

/** Wilder's true range: the bar's range extended to the previous close (gaps count). */
function trueRange(h: number, l: number, previousClose: number): number {
  return Math.max(h - l, Math.max(Math.abs(h - previousClose), Math.abs(l - previousClose)));
}

export const atr: FunctionModule = {
  name: "atr",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "price",
  implicit: ["high", "low", "close"],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "n + 1",
  recursive: true,
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  stateSize: () => 2,
  doc: "Average true range: Wilder RMA of true range, seeded with the mean of the first n true ranges (first value at bar n).",
  example: "atr(14) > close * 0.01",
  reference: "Wilder (1978); TA-Lib ATR; TradingView ta.atr",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "wide-range bar",
      query: "high - low > atr(14) * 2",
      aliases: [
        "range expansion",
        "big candle",
      ],
      notes: "The latest bar's range is more than twice the 14-bar average true range.",
    },
  ],
};
