import type { FunctionModule, Kernel } from "../module.js";

/**
 * Pearson correlation of a and b over the last n bars (TA-Lib CORREL):
 * Σ(a − ā)(b − b̄)/√(Σ(a − ā)²·Σ(b − b̄)²), between −1 and 1. Undefined where either series is
 * flat over the window (and so for n = 1).
 *
 * Computed two-pass from the window means. TA-Lib subtracts running sums
 * (Σab − Σa·Σb/n), which cancels catastrophically on prices far from zero (and drifts after a
 * spike), and writes 0 where its denominator is ≤ 1e-14; here the exact value is taken.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const a = inputs[0]!;
  const b = inputs[1]!;
  const n = consts[0]!;
  let i = from;
  for (; i < to && i < n - 1; i++) out[i] = NaN;
  for (; i < to; i++) {
    const first = i - n + 1;
    // Means from offsets to the window's first values, so a flat window has deviations of
    // exactly 0; the corrected sums (Chan, Golub & LeVeque) remove what rounding left in Σd.
    const shiftA = a[first]!;
    const shiftB = b[first]!;
    let sa = 0;
    let sb = 0;
    for (let j = first; j <= i; j++) {
      sa += a[j]! - shiftA;
      sb += b[j]! - shiftB;
    }
    const ma = shiftA + sa / n;
    const mb = shiftB + sb / n;
    let da = 0;
    let db = 0;
    let ab = 0;
    let aa = 0;
    let bb = 0;
    for (let j = first; j <= i; j++) {
      const ea = a[j]! - ma;
      const eb = b[j]! - mb;
      da += ea;
      db += eb;
      ab += ea * eb;
      aa += ea * ea;
      bb += eb * eb;
    }
    ab -= (da * db) / n;
    aa = Math.max(aa - (da * da) / n, 0);
    bb = Math.max(bb - (db * db) / n, 0);
    const denominator = Math.sqrt(aa * bb);
    // Rounding can push |r| a hair past 1 on perfectly correlated windows; clamp it back.
    out[i] = denominator === 0 ? NaN : Math.max(-1, Math.min(1, ab / denominator));
  }
};

export const correl: FunctionModule = {
  name: "correl",
  params: [
    { name: "a", kind: "series" },
    { name: "b", kind: "series" },
    { name: "n", kind: "length" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: (k) => k[0]! - 1,
  lookbackDoc: "max(L(a), L(b)) + n − 1",
  recursive: false,
  kernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Pearson correlation of a and b over the last n bars; undefined when either is flat.",
  example: "correl(close, volume, 20) > 0.5",
  reference: "TA-Lib CORREL",
  phrases: [
    {
      category: "Indicators",
      phrase: "price and volume moving together",
      query: "correl(close, volume, 20) > 0.5",
      notes: "The Pearson correlation of close and volume over 20 bars is above 0.5. Undefined where either is flat.",
    },
    {
      category: "Indicators",
      phrase: "price moving against the daily trend",
      query: "correl(close, d::close, 20) < 0",
      notes: "Over the last 20 bars the close moved opposite to the last completed daily close series.",
    },
  ],
};
