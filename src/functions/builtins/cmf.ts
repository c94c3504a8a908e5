import type { FunctionModule, Kernel } from "../module.js";

/**
 * Chaikin money flow (TradingView CMF): Σ money-flow volume / Σ volume over the last n bars,
 * each bar's money-flow volume being volume·((close − low) − (high − close))/(high − low);
 * a bar with high = low adds no flow (its volume still counts in the denominator), as in
 * TradingView's script. Between −1 (every bar closed on its low) and 1. Undefined where the
 * window's volume is 0. Inputs are the implicit [high, low, close, volume].
 *
 * Windowed: each bar sums its window directly.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const volume = inputs[3]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    let flow = 0;
    let total = 0;
    for (let j = i - n + 1; j <= i; j++) {
      const h = high[j]!;
      const l = low[j]!;
      const c = close[j]!;
      const v = volume[j]!;
      // h === l is false for a NaN high or low, so the formula below carries the NaN on.
      flow += h === l ? c - c : (((c - l) - (h - c)) / (h - l)) * v;
      total += v;
    }
    out[i] = total === 0 ? NaN : flow / total;
  }
};

export const cmf: FunctionModule = {
  name: "cmf",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "number",
  implicit: ["high", "low", "close", "volume"],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "n",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Chaikin money flow: Σ(volume · ((close − low) − (high − close))/(high − low)) / Σvolume over n bars (a bar with high = low adds 0 flow); undefined when that volume is 0.",
  example: "cmf(20) > 0.1",
  reference: "TradingView CMF",
  phrases: [
    {
      category: "Volume",
      phrase: "money flowing in (Chaikin money flow positive)",
      query: "cmf(20) > 0",
      aliases: ["cmf positive"],
      notes: "20-bar Chaikin money flow above 0: on balance, volume came with closes in the upper half of the bars' ranges.",
    },
    {
      category: "Volume",
      phrase: "strong buying pressure (Chaikin money flow above 0.2)",
      query: "cmf(20) > 0.2",
      notes: "CMF above 0.2 is the usual threshold for strong accumulation; −0.2 for strong distribution.",
    },
  ],
};
