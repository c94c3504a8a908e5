import type { FunctionModule, Kernel } from "../module.js";

/**
 * Volume-weighted moving average (TradingView `ta.vwma`): Σ(src·volume)/Σvolume over the last
 * n bars — an SMA in which heavy-volume bars count more. Undefined where the window's volume is
 * 0 (a feed without volume). Inputs are [src, volume (implicit)].
 *
 * Windowed: each bar sums its window directly.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const volume = inputs[1]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const price = x[i]!;
    let weighted = 0;
    let total = 0;
    let flat = true;
    for (let j = i - n + 1; j <= i; j++) {
      const v = volume[j]!;
      const y = x[j]!;
      weighted += y * v;
      total += v;
      if (y !== price) flat = false;
    }
    // Equal prices over the window: their volume-weighted mean is that price, exactly (decisions §9).
    out[i] = total === 0 || total !== total ? NaN : flat ? price : weighted / total;
  }
};

export const vwma: FunctionModule = {
  name: "vwma",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "input",
  implicit: ["volume"],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "L(src) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Volume-weighted moving average: Σ(src·volume)/Σvolume over the last n bars; undefined when that volume is 0.",
  example: "close > vwma(20)",
  reference: "TradingView ta.vwma",
  phrases: [
    {
      category: "Moving averages",
      phrase: "price above the volume-weighted moving average",
      query: "close > vwma(20)",
      aliases: ["above vwma"],
      notes: "Close above the 20-bar VWMA, which counts heavy-volume bars more; above it means buyers paid up on volume. Needs volume data (undefined without any).",
    },
  ],
};
