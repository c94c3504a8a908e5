import type { FunctionModule, Kernel } from "../module.js";

/**
 * `cross(a, b)`: a crossed b in either direction on this bar, i.e. `crossover(a, b) or
 * crossunder(a, b)`: a > b now and a <= b before, or a < b now and a >= b before. Touching
 * (a = b now) is not a cross yet; the cross is the bar that leaves the other side. Comparisons
 * with an undefined or infinite operand are false (decisions §1), so a bar where a or b is
 * undefined now or on the previous bar is 0; bar 0 has no previous bar and is 0.
 */
const crossKernel: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  let i = from;
  if (i === 0 && i < to) out[i++] = 0;
  for (; i < to; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const px = a[i - 1]!;
    const py = b[i - 1]!;
    // x − x is 0 only for finite x: ±Infinity (a division by zero) fails like NaN.
    const finite = x - x + y - y + px - px + py - py === 0;
    out[i] = finite && ((x > y && px <= py) || (x < y && px >= py)) ? 1 : 0;
  }
};

export const cross: FunctionModule = {
  name: "cross",
  params: [
    { name: "a", kind: "series" },
    { name: "b", kind: "series" },
  ],
  result: "boolean",
  column: "number",
  implicit: [],
  extraLookback: () => 1,
  lookbackDoc: "max(L(a), L(b)) + 1",
  recursive: false,
  kernel: crossKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "True on the bar where a crosses b in either direction: crossover(a, b) or crossunder(a, b).",
  example: "cross(macd(12, 26), macd_signal(12, 26, 9))",
  reference: "TradingView ta.cross",
  phrases: [
    {
      category: "MACD",
      phrase: "MACD crossed its signal",
      query: "cross(macd(12, 26), macd_signal(12, 26, 9))",
      aliases: ["macd cross either way"],
      notes: "The MACD line crossed its signal line on this bar, in either direction; use crossover or crossunder for one direction.",
    },
    {
      category: "Moving averages",
      phrase: "price crossed the 50-bar average",
      query: "cross(close, sma(50))",
      aliases: ["price crosses the 50 sma"],
      notes: "The close crossed its 50-bar average on this bar, up or down.",
    },
  ],
};
