import { convergenceBars, type FunctionModule, type Kernel } from "../module.js";
import { DX, DIRECTIONAL_STATE, directional } from "../shared/directional.js";

/** See `directional` in shared/directional.ts: Wilder's running sums, first defined n bars after the first full bar. */
const kernel: Kernel = (inputs, consts, out, from, to, _ctx, state) =>
  directional(inputs[0]!, inputs[1]!, inputs[2]!, consts[0]!, DX, out, from, to, state);

export const dx: FunctionModule = {
  name: "dx",
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
  doc: "Directional movement index (Wilder): 100·|+DI − −DI|/(+DI + −DI), the unsmoothed trend strength behind adx.",
  example: "dx(14) > 30",
  reference: "TA-Lib DX",
  phrases: [
    {
      category: "Trend",
      phrase: "directional movement above 30",
      query: "dx(14) > 30",
      aliases: ["dx above 30"],
      notes: "The unsmoothed directional index over 14 bars above 30; adx is its smoothed, steadier version.",
    },
  ],
};
