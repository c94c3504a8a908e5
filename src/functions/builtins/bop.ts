import type { FunctionModule, Kernel } from "../module.js";

/**
 * Balance of power (Livshits): `(close − open)/(high − low)`, how much of the bar's range the
 * buyers (positive) or sellers (negative) covered, −1 to 1. A bar with high = low has no range
 * to cover and no winner: 0, as TA-Lib writes (decisions §1 says so for this row). TA-Lib also
 * writes 0 for ranges below 1e-14, which on sub-penny prices are real ranges; the exact ratio
 * is kept for them.
 */
const bopKernel: Kernel = (inputs, _consts, out, from, to) => {
  const open = inputs[0]!;
  const high = inputs[1]!;
  const low = inputs[2]!;
  const close = inputs[3]!;
  for (let i = from; i < to; i++) {
    const range = high[i]! - low[i]!;
    const body = close[i]! - open[i]!;
    // A NaN column makes range or body NaN; 0·body keeps it NaN on a zero range too.
    out[i] = range === 0 ? 0 * body : body / range;
  }
};

export const bop: FunctionModule = {
  name: "bop",
  params: [],
  result: "number",
  column: "number",
  implicit: ["open", "high", "low", "close"],
  extraLookback: () => 0,
  lookbackDoc: "1",
  recursive: false,
  kernel: bopKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Balance of power: (close − open)/(high − low), −1 to 1; 0 when high = low.",
  example: "bop > 0.5",
  reference: "TA-Lib BOP",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "buyers in control of the bar",
      query: "bop > 0.5",
      aliases: ["balance of power above 0.5"],
      notes: "Balance of power: the close is above the open by more than half the bar's range. A bare name, no parentheses.",
    },
  ],
};
