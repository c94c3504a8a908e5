import { type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * Bars since the condition was last true within the last n bars: 0 when true on this bar,
 * up to n − 1; undefined (NaN) when it was not true on any of them, so `bars_since(c, 5) <= 2`
 * is false, not true, for an event that never happened. A bar where the condition's inputs
 * were undefined counts as false (decisions §1). Undefined on the first n − 1 bars, where the
 * window is not complete (as for every windowed function, whatever it holds).
 *
 * Tracks the latest true bar while scanning forward: O(1) per bar. Resumable: state [bar, the
 * latest true bar].
 */
const barsSinceKernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const cond = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  let last = -Infinity;
  if (resumes(state, from)) {
    last = state![1]!;
  } else {
    for (; i < to && i < n - 1; i++) out[i] = NaN;
    if (i >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    for (let j = i - n + 1; j < i; j++) if (cond[j] === 1) last = j;
  }
  for (; i < to; i++) {
    if (cond[i] === 1) last = i;
    const age = i - last;
    out[i] = age < n ? age : NaN;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = last;
  }
};

export const bars_since: FunctionModule = {
  name: "bars_since",
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
  // the newest true bar in the window, found exactly whatever bar the scan starts at: values never depend on the range asked.
  rangeIndependent: true,
  kernel: barsSinceKernel,
  stateSize: () => 2,
  doc: "Bars since cond was last true within the last n bars: 0 when true now; undefined when it was not true in the window.",
  example: "bars_since(crossover(macd(12, 26), macd_signal(12, 26, 9)), 5) <= 4",
  phrases: [
    {
      category: "MACD",
      phrase: "fresh MACD cross",
      query: "bars_since(crossover(macd(12, 26), macd_signal(12, 26, 9)), 5) <= 4",
      aliases: ["macd crossed recently", "recent macd cross"],
      notes: "The MACD line crossed above its signal line within the last 5 bars (0 = this bar). False if it did not cross at all in that window.",
    },
    {
      category: "Moving averages",
      phrase: "golden cross in the last 10 bars",
      query: "bars_since(crossover(sma(50), sma(200)), 10) <= 9",
      aliases: ["recent golden cross"],
      notes: "The 50-bar average crossed above the 200-bar average within the last 10 bars.",
    },
  ],
};
