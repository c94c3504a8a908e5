import { type FunctionModule, type Kernel, resumes } from "../module.js";

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
 *
 * Resumable: state [bar, long, af, ep, sar, the last high and low, ended], from its first value on.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const max = consts[1]!;
  const step = Math.min(consts[0]!, max);
  let long: boolean;
  let af: number;
  let ep: number;
  let sar: number;
  let newHigh: number;
  let newLow: number;
  let i: number;
  // A NaN bar ends the SAR for good.
  let ended = false;
  if (resumes(state, from)) {
    long = state![1] === 1;
    af = state![2]!;
    ep = state![3]!;
    sar = state![4]!;
    newHigh = state![5]!;
    newLow = state![6]!;
    ended = state![7] === 1;
    i = from;
  } else {
    let f = 0;
    while (f < to && (high[f]! !== high[f]! || low[f]! !== low[f]!)) f++;
    const start = f + 1;
    for (let j = from; j < to && j < start; j++) out[j] = NaN;
    if (start >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    const upMove = high[start]! - high[f]!;
    const downMove = low[f]! - low[start]!;
    long = !(downMove > 0 && upMove < downMove);
    af = step;
    ep = long ? high[start]! : low[start]!;
    sar = long ? low[f]! : high[f]!;
    newHigh = high[start]!;
    newLow = low[start]!;
    i = start;
  }
  for (; i < to && !ended; i++) {
    const prevHigh = newHigh;
    const prevLow = newLow;
    newHigh = high[i]!;
    newLow = low[i]!;
    if (newHigh !== newHigh || newLow !== newLow) {
      ended = true;
      break;
    }
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
  if (state !== undefined) {
    state[0] = to;
    state[1] = long ? 1 : 0;
    state[2] = af;
    state[3] = ep;
    state[4] = sar;
    state[5] = newHigh;
    state[6] = newLow;
    state[7] = ended ? 1 : 0;
  }
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
  stateSize: () => 8,
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
