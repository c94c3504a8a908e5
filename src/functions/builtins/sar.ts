import type { FunctionModule, Kernel } from "../module.js";

/**
 * Parabolic SAR (Wilder; TA-Lib SAR with acceleration = step, maximum = max): a stop that
 * trails the trend, moving each bar by af·(extreme point − sar), where the acceleration factor
 * af starts at `step` and grows by `step` (up to `max`) each time the trend makes a new extreme.
 * The stop may never enter the previous or current bar's range; when price touches it the trend
 * reverses and the stop jumps to the extreme point of the finished trend. Inputs are the
 * implicit [high, low]; consts [step, max]. A step above max is clamped to max, as in TA-Lib.
 *
 * As in TA-Lib, the first value is at bar 1 and the first trend is short when bar 1's low fell
 * below bar 0's by more than the high rose (a positive −DM), long otherwise; a long trend's
 * first stop is bar 0's low, a short one's bar 0's high.
 *
 * Recursive: streams from the first bar f with high and low defined; a NaN after that makes
 * every later value NaN. The state is rebuilt at every reversal, so no warm-up beyond the
 * source's minimum applies.
 */
const kernel: Kernel = (inputs, consts, out, from, to) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const max = consts[1]!;
  const step = Math.min(consts[0]!, max);
  let f = 0;
  while (f < to && (high[f]! !== high[f]! || low[f]! !== low[f]!)) f++;
  const start = f + 1;
  for (let i = from; i < to && i < start; i++) out[i] = NaN;
  if (start >= to) return;

  const upMove = high[start]! - high[f]!;
  const downMove = low[f]! - low[start]!;
  let long = !(downMove > 0 && upMove < downMove);
  let af = step;
  let ep = long ? high[start]! : low[start]!;
  let sar = long ? low[f]! : high[f]!;
  let newHigh = high[start]!;
  let newLow = low[start]!;
  let i = start;
  for (; i < to; i++) {
    const prevHigh = newHigh;
    const prevLow = newLow;
    newHigh = high[i]!;
    newLow = low[i]!;
    if (newHigh !== newHigh || newLow !== newLow) break;
    let value: number;
    if (long) {
      if (newLow <= sar) {
        // Stopped out: the new short trend's stop is the long trend's extreme.
        long = false;
        sar = Math.max(ep, prevHigh, newHigh);
        value = sar;
        af = step;
        ep = newLow;
        sar = Math.max(sar + af * (ep - sar), prevHigh, newHigh);
      } else {
        value = sar;
        if (newHigh > ep) {
          ep = newHigh;
          af = Math.min(af + step, max);
        }
        sar = Math.min(sar + af * (ep - sar), prevLow, newLow);
      }
    } else if (newHigh >= sar) {
      long = true;
      sar = Math.min(ep, prevLow, newLow);
      value = sar;
      af = step;
      ep = newHigh;
      sar = Math.min(sar + af * (ep - sar), prevLow, newLow);
    } else {
      value = sar;
      if (newLow < ep) {
        ep = newLow;
        af = Math.min(af + step, max);
      }
      sar = Math.max(sar + af * (ep - sar), prevHigh, newHigh);
    }
    if (i >= from) out[i] = value;
  }
  for (i = Math.max(i, from); i < to; i++) out[i] = NaN;
};

export const sar: FunctionModule = {
  name: "sar",
  params: [
    { name: "step", kind: "number", samples: [0.01, 0.02, 0.03] },
    { name: "max", kind: "number", samples: [0.1, 0.2, 0.3] },
  ],
  result: "number",
  column: "price",
  implicit: ["high", "low"],
  extraLookback: () => 1,
  lookbackDoc: "2",
  recursive: true,
  kernel,
  doc: "Parabolic SAR: Wilder's trailing stop, acceleration starting at step and rising by step per new extreme up to max.",
  example: "close > sar(0.02, 0.2)",
  reference: "TA-Lib SAR (acceleration = step, maximum = max)",
  phrases: [
    {
      category: "Trend",
      phrase: "parabolic SAR below price (uptrend)",
      query: "close > sar(0.02, 0.2)",
      aliases: ["psar bullish"],
      notes: "Wilder's parabolic SAR with the usual acceleration 0.02 up to 0.2 sits below the close: the trailing stop of a long trend.",
    },
    {
      category: "Trend",
      phrase: "parabolic SAR flipped to bullish",
      query: "crossover(close, sar(0.02, 0.2))",
      notes: "The close crossed above the parabolic SAR on the latest bar: the stop-and-reverse system just turned long.",
    },
  ],
};
