import { EMA_STATE, ema } from "./ema.js";
import { convergenceBars, type FunctionModule, type Kernel, subState } from "../module.js";

/**
 * Percentage price oscillator: `100·(ema(src, fast) − ema(src, slow))/ema(src, slow)`, MACD
 * in percent of the slow average, so it compares across price levels. As in TA-Lib the two
 * lengths are taken in order (the longer one is the slow EMA whatever the argument order);
 * each EMA is seeded with the SMA of its own first n values. A slow EMA of 0 is a zero
 * denominator: NaN.
 *
 * Recursive: both EMAs stream from the first defined src through scratch buffers 0 and 1.
 */
const ppoKernel: Kernel = (inputs, consts, out, from, to, ctx, state) => {
  const a = consts[0]!;
  const b = consts[1]!;
  const fast = ctx.scratch(0, to);
  const slow = ctx.scratch(1, to);
  // Its state is the fast EMA's, then the slow one's: each resumes on its own.
  ema.kernel([inputs[0]!], [Math.min(a, b)], fast, from, to, ctx, subState(state, 0, EMA_STATE));
  ema.kernel([inputs[0]!], [Math.max(a, b)], slow, from, to, ctx, subState(state, EMA_STATE, EMA_STATE));
  for (let i = from; i < to; i++) {
    const s = slow[i]!;
    out[i] = s === 0 ? NaN : ((fast[i]! - s) / s) * 100;
  }
};

export const ppo: FunctionModule = {
  name: "ppo",
  params: [
    { name: "src", kind: "series", default: "close" },
    { name: "fast", kind: "length" },
    { name: "slow", kind: "length" },
  ],
  result: "number",
  column: "number",
  implicit: [],
  extraLookback: ([fast = 1, slow = 1]) => Math.max(fast, slow) - 1,
  lookbackDoc: "L(src) + max(fast, slow) − 1",
  recursive: true,
  warmup: ([fast = 1, slow = 1]) => convergenceBars(2 / (Math.max(fast, slow) + 1)),
  kernel: ppoKernel,
  stateSize: () => 2 * EMA_STATE,
  doc: "Percentage price oscillator: 100·(ema(src, fast) − ema(src, slow))/ema(src, slow), MACD as a percentage of the slow EMA.",
  example: "crossover(ppo(12, 26), 0)",
  reference: "TA-Lib PPO with MAType EMA",
  phrases: [
    {
      category: "MACD",
      phrase: "PPO turned positive",
      query: "crossover(ppo(12, 26), 0)",
      aliases: ["percentage price oscillator crosses zero"],
      notes: "The 12-bar EMA crosses above the 26-bar EMA, measured in percent of the slow EMA so it compares across price levels.",
    },
  ],
};
