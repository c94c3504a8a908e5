import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { MINUS_DI, DIRECTIONAL_STATE, directional } from "../shared/directional.js";

/**
 * See `directional` in shared/directional.ts: Wilder's running sums, first defined n bars after the first full
 * bar. With n = 1 the sums are the bar's own −DM and true range; TA-Lib's special case for
 * period 1 returns that ratio as a fraction instead of a percentage (0.15 for 15), unlike its
 * every other period: the percentage is kept here.
 */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) =>
  directional(inputs[0]!, inputs[1]!, inputs[2]!, consts[0]!, MINUS_DI, out, from, to, state);

export const minus_di: FunctionModule = {
  name: "minus_di",
  params: [{ name: "n", kind: "length" }],
  result: "number",
  column: "oscillator",
  implicit: ["high", "low", "close"],
  extraLookback: ([n = 1]) => n,
  lookbackDoc: "n + 1",
  recursive: true,
  warmup: ([n = 1]) => convergenceBars(1 / n),
  kernel,
  stateSize: () => DIRECTIONAL_STATE,
  doc: "Minus directional indicator (Wilder): 100·(Wilder-smoothed −DM)/(Wilder-smoothed true range) over n.",
  example: "crossover(minus_di(14), plus_di(14))",
  reference: "TA-Lib MINUS_DI",
  phrases: [
    {
      category: "Trend",
      phrase: "−DI crossed above +DI",
      query: "crossover(minus_di(14), plus_di(14))",
      aliases: ["minus di crosses plus di", "bearish DI cross"],
      notes: "Downward directional movement overtakes upward on this bar.",
    },
  ],
};
