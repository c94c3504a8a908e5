import type { FunctionModule, Kernel } from "../module.js";

/** Elementwise larger of a and b; NaN in either operand gives NaN (Math.max propagates it). */
const kernel: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  for (let i = from; i < to; i++) out[i] = Math.max(a[i]!, b[i]!);
};

export const max: FunctionModule = {
  name: "max",
  params: [{ name: "a", kind: "series" }, { name: "b", kind: "series" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: () => 0,
  lookbackDoc: "max(L(a), L(b))",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "The larger of a and b.",
  example: "max(open, close) < sma(20)",
  reference: "Math.max",
  phrases: [
    {
      phrase: "whole candle body below the previous close",
      query: "max(open, close) < close[1]",
      aliases: [
        "body below prior close",
      ],
      notes: "Both the open and the close of the bar are below the previous bar's close.",
      category: "Price change and candles",
    },
  ],
};
