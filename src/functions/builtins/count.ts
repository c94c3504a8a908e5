import { type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * How many of the last n bars (current included) the condition held on, 0 to n. A condition
 * is never undefined: a comparison with an undefined value is false (decisions §1), so a bar
 * where, say, the RSI did not exist yet counts as not oversold. Undefined (NaN) on the first
 * n − 1 bars, where fewer than n bars exist to count over.
 *
 * A running count (integers, exact): O(1) per bar. Resumable: state [bar, count].
 */
const countKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const cond = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  // `=== 1` rather than the value itself: anything but a true bar counts as false.
  let count = 0;
  if (resumes(state, from)) {
    count = state![1]!;
  } else {
    for (; i < to && i < n - 1; i++) out[i] = NaN;
    if (i >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    for (let j = i - n + 1; j < i; j++) if (cond[j] === 1) count++;
  }
  for (; i < to; i++) {
    if (cond[i] === 1) count++;
    out[i] = count;
    if (cond[i - n + 1] === 1) count--;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = count;
  }
};

export const count: FunctionModule = {
  name: "count",
  params: [
    { name: "cond", kind: "condition" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: ([n = 1]) => n - 1,
  lookbackDoc: "L(cond) + n − 1",
  recursive: false,
  // an integer count, exact whatever bar the running count starts at: values never depend on the range asked.
  rangeIndependent: true,
  kernel: countKernel,
  stateSize: () => 2,
  doc: "Number of the last n bars (current included) on which cond was true; a bar where cond's inputs are undefined counts as false.",
  example: "count(rsi(14) < 30, 10) >= 2",
  phrases: [
    {
      category: "Momentum",
      phrase: "RSI oversold twice in 10 bars",
      query: "count(rsi(14) < 30, 10) >= 2",
      aliases: ["rsi below 30 at least twice"],
      notes: "The 14-bar RSI was below 30 on at least 2 of the last 10 bars (the current one included).",
    },
    {
      category: "Price change and candles",
      phrase: "three green candles in the last five",
      query: "count(close > open, 5) >= 3",
      aliases: ["mostly green candles"],
      notes: "At least 3 of the last 5 bars closed above their open.",
    },
  ],
};
