import type { FunctionModule, Kernel } from "../module.js";

/**
 * Sum of the last n values, current bar included (TA-Lib SUM). NaN until n values exist and
 * wherever the window holds a NaN.
 *
 * Windowed: each bar sums its window directly. TA-Lib keeps a running sum, which after a spike
 * leaves the window keeps the spike's rounding error (a flat stretch then sums to a tiny
 * non-zero); the direct sum is the exact value.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    let acc = 0;
    for (let j = i - n + 1; j <= i; j++) acc += x[j]!;
    out[i] = acc;
  }
};

export const sum: FunctionModule = {
  name: "sum",
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
  doc: "Sum of the last n values, current bar included.",
  example: "sum(volume, 5) > sum(volume, 20) / 2",
  reference: "TA-Lib SUM",
  phrases: [
    {
      category: "Volume",
      phrase: "last 5 bars traded more than half the volume of the last 20",
      query: "sum(volume, 5) > sum(volume, 20) / 2",
      notes: "Volume is concentrating: a quarter of the window holds over half its volume.",
    },
  ],
};
