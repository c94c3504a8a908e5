/**
 * `bb_upper`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { BollingerBands } from "technicalindicators";
import { describe, it } from "vitest";
import { BARS, MODULE, alignEnd, evaluate, expectClose, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each([
    [20, 2],
    [10, 1.5],
    [50, 2.5],
    [5, 0.5],
  ])("bb_upper/bb_lower(close, %i, %d) = BollingerBands", (n, k) => {
    const ref = BollingerBands.calculate({ period: n, stdDev: k, values: Array.from(close) });
    expectClose(evaluate(MODULE.bb_upper, [close], [n, k]), alignEnd(ref.map((b) => b.upper), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
    expectClose(evaluate(MODULE.bb_lower, [close], [n, k]), alignEnd(ref.map((b) => b.lower), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});
