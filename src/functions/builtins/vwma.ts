import type { FunctionModule, Kernel } from "../module.js";
import { equalRun, nextRun } from "../shared/flat.js";

/**
 * Volume-weighted moving average (TradingView `ta.vwma`): Σ(src·volume)/Σvolume over the last
 * n bars — an SMA in which heavy-volume bars count more. Undefined where the window's volume is
 * 0 (a feed without volume). Inputs are [src, volume (implicit)].
 *
 * Windowed: each bar sums its window directly. A window of n equal prices (a run counted
 * beside the loop: shared/flat.ts) has that price as its VWMA exactly, whatever the volumes,
 * where Σ(src·volume)/Σvolume can round an ulp away; still undefined when its volume is 0.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const volume = inputs[1]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  let run = equalRun(x, i - 1, n - 1);
  for (; i < to; i++) {
    run = nextRun(x, i, run);
    let weighted = 0;
    let total = 0;
    for (let j = i - n + 1; j <= i; j++) {
      const v = volume[j]!;
      weighted += x[j]! * v;
      total += v;
    }
    const mean = total === 0 ? NaN : weighted / total;
    // mean === mean: a NaN volume or a window without volume stays undefined.
    out[i] = run >= n && mean === mean ? x[i]! : mean;
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
