import type { FunctionModule, Kernel } from "../module.js";

/**
 * Williams' ultimate oscillator: with the previous close pc, buying pressure
 * BP = close − min(low, pc) and true range TR = max(high, pc) − min(low, pc) on each bar, and
 * A(p) = ΣBP/ΣTR over the last p bars, `100·(4·A(short) + 2·A(middle) + A(long))/7`. The
 * weights follow the lengths, not the argument order: the shortest window weighs 4 (TA-Lib
 * sorts the periods too), so ultosc(7, 14, 28) = ultosc(28, 14, 7). A window whose true ranges
 * are all 0 is a zero denominator: NaN (TA-Lib drops that term; it also does so below 1e-14).
 *
 * BP and TR are computed once per bar into scratch buffers 0 and 1; the three windows are
 * nested, so one pass back over the longest sums all three. Direct sums: no drift.
 */
const ultoscKernel: Kernel = (inputs, consts, out, from, to, ctx) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const x = consts[0]!;
  const y = consts[1]!;
  const z = consts[2]!;
  const short = Math.min(x, y, z);
  const long = Math.max(x, y, z);
  const middle = x + y + z - short - long;
  const bp = ctx.scratch(0, to);
  const tr = ctx.scratch(1, to);
  let i = from;
  for (; i < to && i < long; i++) out[i] = NaN;
  if (i >= to) return;
  for (let j = i - long + 1; j < to; j++) {
    const pc = close[j - 1]!;
    const trueLow = Math.min(low[j]!, pc);
    bp[j] = close[j]! - trueLow;
    tr[j] = Math.max(high[j]!, pc) - trueLow;
  }
  for (; i < to; i++) {
    let sumBp = 0;
    let sumTr = 0;
    let j = i;
    const shortEnd = i - short;
    for (; j > shortEnd; j--) {
      sumBp += bp[j]!;
      sumTr += tr[j]!;
    }
    const aShort = sumBp / sumTr;
    const middleEnd = i - middle;
    for (; j > middleEnd; j--) {
      sumBp += bp[j]!;
      sumTr += tr[j]!;
    }
    const aMiddle = sumBp / sumTr;
    const longEnd = i - long;
    for (; j > longEnd; j--) {
      sumBp += bp[j]!;
      sumTr += tr[j]!;
    }
    const aLong = sumBp / sumTr;
    // A zero ΣTR gives 0/0 = NaN: every bar's range and gap was 0, there is no pressure to measure.
    out[i] = (100 * (4 * aShort + 2 * aMiddle + aLong)) / 7;
  }
};

export const ultosc: FunctionModule = {
  name: "ultosc",
  params: [
    { name: "a", kind: "length" },
    { name: "b", kind: "length" },
    { name: "c", kind: "length" },
  ],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([a = 1, b = 1, c = 1]) => Math.max(a, b, c),
  lookbackDoc: "max(a, b, c) + 1",
  recursive: false,
  kernel: ultoscKernel,
  // each bar is computed on its own (a direct window or a per-bar formula; an extreme is exact):
  // values never depend on the range asked, so the evaluator runs no primed blocks for it.
  rangeIndependent: true,
  doc: "Ultimate oscillator (Williams): 100·(4·A(short) + 2·A(middle) + A(long))/7, A(p) = Σ buying pressure/Σ true range over p bars; the shortest length weighs 4.",
  example: "ultosc(7, 14, 28) < 30",
  reference: "TA-Lib ULTOSC",
  phrases: [
    {
      category: "Momentum",
      phrase: "ultimate oscillator oversold",
      query: "ultosc(7, 14, 28) < 30",
      aliases: ["ultimate oscillator below 30"],
      notes: "Williams' ultimate oscillator (7, 14, 28 bars, weighted 4:2:1) below 30.",
    },
    {
      category: "Momentum",
      phrase: "ultimate oscillator overbought",
      query: "ultosc(7, 14, 28) > 70",
      aliases: ["ultimate oscillator above 70"],
      notes: "Ultimate oscillator above 70.",
    },
  ],
};
