import { type FunctionModule, type Kernel, resumes } from "../module.js";

/**
 * On-balance volume (Granville; TA-Lib OBV): a running total that adds the bar's volume when
 * the close rose, subtracts it when the close fell and keeps it on an unchanged close. It starts
 * at the first bar given with that bar's own volume, as TA-Lib does, so its level depends on how
 * much history was fetched: compare its direction or its own averages, not its value across
 * instruments. Inputs are the implicit [close, volume].
 *
 * Cumulative: streams from the first bar f where close and volume are defined; a NaN after
 * that makes every later value NaN (a gap in the volume record makes the total unknowable).
 *
 * Resumable: state [bar, total, previous close, ended], from its first value on.
 */
const kernel: Kernel = (inputs, _consts, out, from, to, _ctx, state) => {
  const close = inputs[0]!;
  const volume = inputs[1]!;
  let total: number;
  let previous: number;
  let i: number;
  // A NaN bar ends the count for good.
  let ended = false;
  if (resumes(state, from)) {
    total = state![1]!;
    previous = state![2]!;
    ended = state![3] === 1;
    i = from;
  } else {
    let f = 0;
    while (f < to && (close[f]! !== close[f]! || volume[f]! !== volume[f]!)) f++;
    for (let j = from; j < to && j < f; j++) out[j] = NaN;
    if (f >= to) {
      if (state !== undefined) state[0] = NaN;
      return;
    }
    total = volume[f]!;
    previous = close[f]!;
    if (f >= from) out[f] = total;
    i = f + 1;
  }
  for (; i < to && !ended; i++) {
    const c = close[i]!;
    const v = volume[i]!;
    if (c !== c || v !== v) {
      ended = true;
      break;
    }
    if (c > previous) total += v;
    else if (c < previous) total -= v;
    previous = c;
    if (i >= from) out[i] = total;
  }
  for (i = Math.max(i, from); i < to; i++) out[i] = NaN;
  if (state !== undefined) {
    state[0] = to;
    state[1] = total;
    state[2] = previous;
    state[3] = ended ? 1 : 0;
  }
};

export const obv: FunctionModule = {
  name: "obv",
  params: [],
  result: "number",
  column: "volume",
  implicit: ["close", "volume"],
  extraLookback: () => 0,
  lookbackDoc: "1",
  recursive: true,
  kernel,
  stateSize: () => 4,
  doc: "On-balance volume: running total of volume, added on an up close and subtracted on a down close, from the first bar given.",
  example: "obv > sma(obv, 20)",
  reference: "TA-Lib OBV",
  phrases: [
    {
      category: "Volume",
      phrase: "on-balance volume rising",
      query: "obv > obv[5]",
      aliases: ["obv up"],
      notes: "OBV is higher than 5 bars ago: more volume traded on up closes than on down closes.",
    },
    {
      category: "Volume",
      phrase: "OBV above its 20-bar average (volume confirms the move)",
      query: "obv > sma(obv, 20)",
      notes: "OBV is above its own 20-bar mean. Its level depends on where the fetched history starts; compare it with itself, not across instruments.",
    },
  ],
};
