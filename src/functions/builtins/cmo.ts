import type { FunctionModule, Kernel } from "../module.js";

/**
 * Chande momentum oscillator, as Chande defined it (Achelis; TradingView `ta.cmo`): over the
 * last n changes d = src − src[1], `100·(Σup − Σdown)/(Σup + Σdown)` with up = max(d, 0) and
 * down = max(−d, 0); plain sums, from −100 to +100. TA-Lib's CMO smooths the sums with
 * Wilder's RMA like its RSI, so it differs from the book and the charts: not the reference.
 * No change at all in the window (a flat stretch) is undefined (NaN): 0/0.
 *
 * The sums are direct over the window (n additions per bar), so a window of equal prices is
 * exactly 0/0 and never a rounding residue.
 */
const cmoKernel: Kernel = (inputs, consts, out, from, to) => {
  const x = inputs[0]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n; i++) out[i] = NaN;
  for (; i < to; i++) {
    let up = 0;
    let down = 0;
    for (let j = i - n + 1; j <= i; j++) {
      const d = x[j]! - x[j - 1]!;
      // |d| ± d is 2·up or 2·down exactly; the common factor 2 cancels in the ratio.
      const a = Math.abs(d);
      up += a + d;
      down += a - d;
    }
    const total = up + down;
    out[i] = total === 0 ? NaN : (100 * (up - down)) / total;
  }
};

export const cmo: FunctionModule = {
  name: "cmo",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: [],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "L(src) + n",
  recursive: false,
  kernel: cmoKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Chande momentum oscillator: 100·(Σup − Σdown)/(Σup + Σdown) over the last n changes of src (plain sums), −100 to 100; undefined when nothing changed.",
  example: "cmo(14) < -50",
  reference: "Chande (Achelis); TradingView ta.cmo. Not TA-Lib CMO, which smooths the sums",
  phrases: [
    {
      category: "Momentum",
      phrase: "Chande momentum oversold",
      query: "cmo(14) < -50",
      aliases: ["cmo below -50"],
      notes: "Chande momentum oscillator over 14 changes below −50: down moves outweigh up moves three to one.",
    },
    {
      category: "Momentum",
      phrase: "Chande momentum overbought",
      query: "cmo(14) > 50",
      aliases: ["cmo above 50"],
      notes: "CMO above +50: up moves outweigh down moves three to one over 14 changes.",
    },
  ],
};
