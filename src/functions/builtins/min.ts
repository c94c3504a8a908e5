import type { FunctionModule, Kernel } from "../module.js";

/** Elementwise smaller of a and b; NaN in either operand gives NaN (Math.min propagates it). */
const kernel: Kernel = (inputs, _consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  for (let i = from; i < to; i++) out[i] = Math.min(a[i]!, b[i]!);
};

export const min: FunctionModule = {
  name: "min",
  params: [{ name: "a", kind: "series" }, { name: "b", kind: "series" }],
  result: "number",
  column: "input",
  implicit: [],
  extraLookback: () => 0,
  lookbackDoc: "max(L(a), L(b))",
  recursive: false,
  rangeIndependent: true,
  kernel,
  doc: "The smaller of a and b.",
  example: "min(open, close) > sma(20)",
  reference: "Math.min",
  phrases: [
    {
      phrase: "whole candle body above the previous close",
      query: "min(open, close) > close[1]",
      aliases: [
        "body above prior close",
      ],
      notes: "Both the open and the close of the bar are above the previous bar's close.",
      category: "Price change and candles",
    },
  ],
};
