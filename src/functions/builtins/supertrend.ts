import { atr } from "./atr.js";
import { convergenceBars, type FunctionModule, type Kernel, resumes, subState } from "../module.js";

/**
 * SuperTrend (TradingView `ta.supertrend`, its ATR Wilder's): bands hl2 ± mult·atr(n) that
 * only ratchet towards price — the lower band never falls and the upper band never rises
 * unless the previous close broke through it — and a line that sits on the lower band in an
 * uptrend and on the upper band in a downtrend, flipping when the close crosses the band it is
 * not on. Written exactly as Pine's reference code: on the first bar with an ATR the previous
 * bands count as 0 (Pine's `nz`) and the trend starts down (the line on the upper band); the
 * trend test compares the previous line with the previous upper band, as Pine does.
 * Inputs are the implicit [high, low, close]; consts [n, mult].
 *
 * The ATR is XQL's `atr(n)` (first value at bar n), so the line starts at bar n. Recursive: a
 * NaN bar after the start makes every later value NaN, like the ATR under it.
 *
 * Resumable: state [bar, upper and lower band and line before, ended], then the ATR's.
 */
const kernel: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const mult = consts[1]!;
  if (from >= to) return;
  const range = ctx.scratch(0, to);
  const atrState = subState(state, 5, atr.stateSize!(consts));
  let upperBefore = 0;
  let lowerBefore = 0;
  let lineBefore = NaN;
  // The first bar with an ATR (the line starts there); −1 once resumed past it.
  let f = -1;
  let i: number;
  // A NaN bar ends the line for good.
  let ended = false;
  if (resumes(state, from)) {
    atr.kernel(inputs, consts, range, from, to, ctx, atrState);
    upperBefore = state![1]!;
    lowerBefore = state![2]!;
    lineBefore = state![3]!;
    ended = state![4] === 1;
    i = from;
  } else {
    if (atrState !== undefined) atrState[0] = NaN;
    atr.kernel(inputs, consts, range, 0, to, ctx, atrState);
    f = 0;
    while (f < to && range[f]! !== range[f]!) f++;
    for (let j = from; j < to && j < f; j++) out[j] = NaN;
    i = f;
  }
  for (; i < to && !ended; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const c = close[i]!;
    const a = range[i]!;
    if (a !== a || h !== h || l !== l || c !== c) {
      ended = true;
      break;
    }
    const mid = (h + l) / 2;
    let upper = mid + mult * a;
    let lower = mid - mult * a;
    const closeBefore = close[i - 1]!;
    if (!(lower > lowerBefore || closeBefore < lowerBefore)) lower = lowerBefore;
    if (!(upper < upperBefore || closeBefore > upperBefore)) upper = upperBefore;
    let up: boolean;
    if (i === f) up = false;
    else if (lineBefore === upperBefore) up = c > upper;
    else up = !(c < lower);
    const line = up ? lower : upper;
    if (i >= from) out[i] = line;
    upperBefore = upper;
    lowerBefore = lower;
    lineBefore = line;
  }
  for (i = Math.max(i, from); i < to; i++) out[i] = NaN;
  if (state !== undefined) {
    // Before the first ATR there is nothing to carry.
    state[0] = f >= to ? NaN : to;
    state[1] = upperBefore;
    state[2] = lowerBefore;
    state[3] = lineBefore;
    state[4] = ended ? 1 : 0;
  }
};

export const supertrend: FunctionModule = {
  name: "supertrend",
  params: [
    { name: "n", kind: "length" },
    { name: "mult", kind: "number" },
  ],
  result: "number",
  column: "price",
  implicit: ["high", "low", "close"],
  extraLookback: (k) => k[0]!,
  lookbackDoc: "n + 1",
  recursive: true,
  warmup: (k) => convergenceBars(1 / k[0]!),
  kernel,
  stateSize: (k) => 5 + atr.stateSize!(k),
  doc: "SuperTrend line: hl2 ± mult·atr(n) bands that only ratchet towards price; the line is on the lower band in an uptrend (close above it) and on the upper band in a downtrend.",
  example: "close > supertrend(10, 3)",
  reference: "TradingView ta.supertrend (its ATR is Wilder's)",
  phrases: [
    {
      category: "Trend",
      phrase: "SuperTrend is bullish (price above the SuperTrend line)",
      query: "close > supertrend(10, 3)",
      aliases: ["supertrend buy", "supertrend green"],
      notes: "The close is above the SuperTrend line (ATR 10, multiplier 3, TradingView's defaults), i.e. the line is on its lower band.",
    },
    {
      category: "Trend",
      phrase: "SuperTrend just turned bullish",
      query: "crossover(close, supertrend(10, 3))",
      notes: "The close crossed above the SuperTrend line on the latest bar: the indicator flipped from down to up.",
    },
  ],
};
