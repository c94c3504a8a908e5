import { type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * Chaikin accumulation/distribution line (TA-Lib AD): a running total of money-flow volume,
 * each bar adding volume·((close − low) − (high − close))/(high − low) — the whole volume when
 * the bar closes on its high, minus it on its low. A bar without a positive range adds nothing,
 * as in TA-Lib. Starts from 0 before the first bar given, so only its changes mean anything
 * across instruments. Inputs are the implicit [high, low, close, volume].
 *
 * Cumulative: streams from the first bar f with all four defined; a NaN after that makes every
 * later value NaN.
 *
 * Resumable: state [bar, total, started].
 */
const kernel: Kernel = (inputs, _consts, out, from, to, _ctx, state) => {
  const high = inputs[0]!;
  const low = inputs[1]!;
  const close = inputs[2]!;
  const volume = inputs[3]!;
  let total = 0;
  let started = false;
  let i = 0;
  if (resumes(state, from)) {
    total = state![1]!;
    started = state![2] === 1;
    i = from;
  }
  for (; i < to; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const c = close[i]!;
    const v = volume[i]!;
    if (h !== h || l !== l || c !== c || v !== v) {
      if (started) total = NaN;
    } else {
      started = true;
      const range = h - l;
      if (range > 0) total += (((c - l) - (h - c)) / range) * v;
    }
    if (i >= from) out[i] = started ? total : NaN;
  }
  if (state !== undefined) {
    state[0] = to;
    state[1] = total;
    state[2] = started ? 1 : 0;
  }
};

export const ad: FunctionModule = {
  name: "ad",
  params: [],
  result: "number",
  column: "volume",
  implicit: ["high", "low", "close", "volume"],
  extraLookback: () => 0,
  lookbackDoc: "1",
  recursive: true,
  kernel,
  stateSize: () => 3,
  doc: "Chaikin accumulation/distribution line: running total of volume · ((close − low) − (high − close))/(high − low), from the first bar given.",
  example: "ad > ad[10]",
  reference: "TA-Lib AD",
  phrases: [
    {
      category: "Volume",
      phrase: "accumulation: A/D line rising over 10 bars",
      query: "ad > ad[10]",
      aliases: ["accumulation distribution rising"],
      notes: "Chaikin's accumulation/distribution line is higher than 10 bars ago: closes near the highs on volume.",
    },
  ],
};
