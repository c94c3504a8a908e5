import type { FunctionModule, Kernel } from "../module.js";

/**
 * Money flow index (Quong and Soudack; Achelis): the RSI of money flow. Raw money flow is
 * typical price × volume, tp = (high + low + close)/3. Over the last n bars, a bar whose tp is
 * above the previous bar's adds its flow to the positive sum, below adds to the negative sum,
 * and an equal tp adds to neither (the flow has no direction). MFI = 100·pos/(pos + neg),
 * which is Achelis' 100 − 100/(1 + pos/neg) without the division by a zero negative flow: 100
 * when all flow is positive, 0 when all is negative. With no flow at all (flat tp or zero
 * volume across the window) it is undefined (NaN). TA-Lib writes 0 whenever pos + neg < 1,
 * which is wrong for small prices and volumes; the exact ratio is kept here.
 *
 * The signed flow of each bar is computed once into scratch buffer 0, and both sums are
 * direct window sums, exact at 0 (a running sum would leave rounding residue where the true
 * sum is 0, turning an undefined value into a tiny one).
 */
const mfiKernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const volume = inputs[3]!;
  const n = consts[0]!;
  const flow = ctx.scratch(0, to);
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  if (i >= to) return;
  let previous = (high[i - n]! + low[i - n]! + close[i - n]!) / 3;
  for (let j = i - n + 1; j < to; j++) {
    const tp = (high[j]! + low[j]! + close[j]!) / 3;
    const mf = tp * volume[j]!;
    // NaN tp on either side compares false both ways: the NaN volume guard keeps it undefined.
    flow[j] = tp > previous ? mf : tp < previous ? -mf : tp === previous ? 0 * mf : NaN;
    previous = tp;
  }
  for (; i < to; i++) {
    let pos = 0;
    let neg = 0;
    for (let j = i - n + 1; j <= i; j++) {
      const f = flow[j]!;
      if (f > 0) pos += f;
      else if (f < 0) neg -= f;
      else if (f !== f) pos = NaN;
    }
    const total = pos + neg;
    out[i] = total === 0 ? NaN : (100 * pos) / total;
  }
};

export const mfi: FunctionModule = {
  name: "mfi",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close", "volume"],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "n + 1",
  recursive: false,
  // both sums are summed afresh over each bar's window: values never depend on the range asked.
  rangeIndependent: true,
  kernel: mfiKernel,
  doc: "Money flow index: 100·positive/(positive + negative) money flow (hlc3·volume, by the sign of the hlc3 change; an unchanged hlc3 counts neither) over n bars; undefined with no flow.",
  example: "mfi(14) < 20",
  reference: "TA-Lib MFI (exact ratio kept where TA-Lib writes 0 for a total flow below 1); Achelis",
  phrases: [
    {
      category: "Volume",
      phrase: "money flow oversold",
      query: "mfi(14) < 20",
      aliases: ["mfi below 20", "money flow index oversold"],
      notes: "14-bar money flow index (a volume-weighted RSI of the typical price) below 20.",
    },
    {
      category: "Volume",
      phrase: "money flow overbought",
      query: "mfi(14) > 80",
      aliases: ["mfi above 80"],
      notes: "14-bar money flow index above 80.",
    },
  ],
};
