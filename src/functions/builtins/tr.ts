import type { FunctionModule, Kernel } from "../module.js";

/**
 * True range (Wilder; TA-Lib TRANGE): max(high − low, |high − close[1]|, |low − close[1]|),
 * the bar's range stretched to the previous close so that a gap counts as movement. From the
 * second bar on. Inputs are the implicit [high, low, close].
 */
const kernel: Kernel = (inputs, _consts, out, from, to) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  let i = from;
  if (i === 0 && i < to) out[i++] = NaN;
  for (; i < to; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const c = close[i - 1]!;
    out[i] = Math.max(h - l, Math.abs(h - c), Math.abs(l - c));
  }
};

export const tr: FunctionModule = {
  name: "tr",
  params: [],
  result: "number",
  column: "price",
  implicit: ["high", "low", "close"],
  extraLookback: () => 1,
  lookbackDoc: "2",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "True range: max(high − low, |high − close[1]|, |low − close[1]|).",
  example: "tr > atr(14) * 2",
  reference: "TA-Lib TRANGE",
  phrases: [
    {
      category: "Ranges and volatility",
      phrase: "wide-range bar (true range twice the ATR)",
      query: "tr > atr(14) * 2",
      aliases: ["range expansion"],
      notes: "The latest bar's true range (gaps included) is more than twice the 14-bar average true range: an unusually large bar.",
    },
  ],
};
