import type { FunctionModule, Kernel } from "../module.js";

/**
 * Triangular moving average (TA-Lib TRIMA): the SMA of an SMA, i.e. a weighted mean of the last
 * n values whose weights rise by 1 to the middle of the window and fall back — 1,2,3,2,1 for
 * n = 5, 1,2,2,1 for n = 4 (TA-Lib's split of an even n: SMA(n/2) of SMA(n/2 + 1)). The
 * value at `k` bars ago weighs min(k + 1, n − k).
 *
 * Windowed: each bar sums its window directly. TA-Lib updates a running numerator by adding
 * and removing half-windows, which drifts after a spike; the direct sum is the exact value.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let weights = 0;
  for (let k = 0; k < n; k++) weights += Math.min(k + 1, n - k);
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const v = x[i]!;
    let acc = 0;
    let flat = true;
    for (let k = 0; k < n; k++) {
      const y = x[i - k]!;
      acc += Math.min(k + 1, n - k) * y;
      if (y !== v) flat = false;
    }
    // A window of equal values: its weighted mean is its value, exactly (decisions §9).
    out[i] = flat ? v : acc / weights;
  }
};

export const trima: FunctionModule = {
  name: "trima",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Triangular moving average: the mean of the last n values weighted 1, 2, … up to the middle and back down (an SMA of an SMA).",
  example: "close > trima(20)",
  reference: "TA-Lib TRIMA",
  phrases: [
    {
      category: "Moving averages",
      phrase: "price above the triangular moving average",
      query: "close > trima(20)",
      aliases: ["above trima"],
      notes: "Close above the 20-bar triangular average (an SMA of an SMA), which weighs the middle of the window most and is smoother than an SMA.",
    },
  ],
};
