import type { FunctionModule, Kernel } from "../module.js";

/**
 * How many of the last n bars (current included) the condition held on, 0 to n. A condition
 * is never undefined: a comparison with an undefined value is false (decisions §1), so a bar
 * where, say, the RSI did not exist yet counts as not oversold. Undefined (NaN) on the first
 * n − 1 bars, where fewer than n bars exist to count over.
 *
 * A running count over a window of 1/0 values is exact in floating point: O(1) per bar.
 */
const countKernel: Kernel = (inputs, consts, out, from, to) => {
  const cond = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  if (i >= to) return;
  let count = 0;
  for (let j = i - n + 1; j < i; j++) count += cond[j]!;
  for (; i < to; i++) {
    count += cond[i]!;
    out[i] = count;
    count -= cond[i - n + 1]!;
  }
};

export const count: FunctionModule = {
  name: "count",
  params: [
    { name: "cond", kind: "condition" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  implicit: [],
  extraLookback: ([n = 1]) => n - 1,
  lookbackDoc: "L(cond) + n − 1",
  recursive: false,
  kernel: countKernel,
  doc: "Number of the last n bars (current included) on which cond was true; a bar where cond's inputs are undefined counts as false.",
  example: "count(rsi(14) < 30, 10) >= 2",
  phrases: [
    { phrase: "RSI oversold twice in 10 bars", query: "count(rsi(14) < 30, 10) >= 2" },
    { phrase: "three green candles in the last five", query: "count(close > open, 5) >= 3" },
  ],
};
