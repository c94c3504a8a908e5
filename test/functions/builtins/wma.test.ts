/**
 * `wma`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { WMA } from "technicalindicators";
import { describe, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("wma(close, %i) = WMA", (n) => {
    const ours = evaluate(MODULE.wma, [close], [n]);
    expectClose(ours, alignEnd(WMA.calculate({ period: n, values: Array.from(close) }), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});
