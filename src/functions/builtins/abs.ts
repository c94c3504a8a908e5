import type { FunctionModule, Kernel } from "../module.js";

/** Elementwise absolute value; NaN stays NaN. */
const kernel: Kernel = (inputs, _consts, out, from, to) => {
  const x = inputs[0]!;
  for (let i = from; i < to; i++) out[i] = Math.abs(x[i]!);
};

export const abs: FunctionModule = {
  name: "abs",
  params: [{ name: "x", kind: "series" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: () => 0,
  lookbackDoc: "L(x)",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "Absolute value.",
  example: "abs(change(close, 1)) > atr(14)",
  reference: "Math.abs",
  phrases: [
    {
      category: "Price change and candles",
      phrase: "tiny body (a tenth of the bar's range)",
      query: "abs(close - open) <= (high - low) * 0.1",
      aliases: [
        "small body candle",
      ],
      notes: "The body is at most a tenth of the bar's own range: buyers and sellers ended even (doji is TA-Lib's stricter test against the bars before).",
    },
  ],
};
