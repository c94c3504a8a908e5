import type { FunctionModule, Kernel } from "../module.js";

/**
 * Age of the window's extreme: for each bar i in [from, to), how many bars ago the highest
 * (`highs` true) or lowest value of the n + 1 bars `[i − n, i]` was, into `age`. Chande's Aroon
 * looks back n bars *besides* the current one, so the age runs from 0 (extreme today) to n.
 * On ties the latest bar counts (TA-Lib AROON): a high matched today is a fresh high. NaN
 * before n + 1 bars exist and wherever the window holds a NaN.
 *
 * Keeps the current extreme and its bar, rescanning only when that bar leaves the window, as
 * `highest` does: amortised O(1) per bar on price data.
 */
export function extremeAge(
  x: Float64Array,
  n: number,
  highs: boolean,
  age: Float64Array,
  from: number,
  to: number,
): void {
  const sign = highs ? 1 : -1;
  let i = from;
  for (; i < to && i < n; i++) age[i] = NaN;
  let best = -Infinity;
  let bestAt = -1;
  let nanAt = -1;
  for (; i < to; i++) {
    const first = i - n;
    if (bestAt < first) {
      best = -Infinity;
      bestAt = first - 1;
      for (let j = first; j <= i; j++) {
        const v = sign * x[j]!;
        if (v !== v) nanAt = j;
        else if (v >= best) {
          best = v;
          bestAt = j;
        }
      }
    } else {
      const v = sign * x[i]!;
      if (v !== v) nanAt = i;
      else if (v >= best) {
        best = v;
        bestAt = i;
      }
    }
    age[i] = nanAt >= first ? NaN : i - bestAt;
  }
}

/** Aroon up: `(100/n)·(n − bars since the highest high of the last n + 1 bars)`. */
const aroonUpKernel: Kernel = (inputs, consts, out, from, to) => {
  const n = consts[0]!;
  extremeAge(inputs[0]!, n, true, out, from, to);
  const factor = 100 / n;
  for (let i = from; i < to; i++) out[i] = factor * (n - out[i]!);
};

export const aroon_up: FunctionModule = {
  name: "aroon_up",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  implicit: ["high"],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "n + 1",
  recursive: false,
  kernel: aroonUpKernel,
  doc: "Aroon up: 100·(n − bars since the highest high of the last n + 1 bars)/n; 100 on a fresh high (ties: the latest bar).",
  example: "aroon_up(25) > 70 and aroon_down(25) < 30",
  reference: "TA-Lib AROON (aroonUp); Chande (Achelis)",
  phrases: [
    { phrase: "fresh 25-bar high by Aroon", query: "aroon_up(25) == 100" },
    { phrase: "Aroon uptrend", query: "aroon_up(25) > 70 and aroon_down(25) < 30" },
  ],
};
