/**
 * `highest`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { Highest, Lowest } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const floor = floorOf(bars);

  it.each(LENGTHS)("highest(high, %i) = Highest, lowest(low, %i) = Lowest", (n) => {
    expectClose(evaluate(MODULE.highest, [bars.high], [n]), alignEnd(Highest.calculate({ period: n, values: Array.from(bars.high) }), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
    expectClose(evaluate(MODULE.lowest, [bars.low], [n]), alignEnd(Lowest.calculate({ period: n, values: Array.from(bars.low) }), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});

describe("worked examples", () => {
  it("highest and lowest include the current bar", () => {
    const xs = Float64Array.from([3, 1, 4, 1, 5, 9, 2, 6]);
    expect(Array.from(evaluate(MODULE.highest, [xs], [3]))).toEqual([NaN, NaN, 4, 4, 5, 9, 9, 9]);
    expect(Array.from(evaluate(MODULE.lowest, [xs], [3]))).toEqual([NaN, NaN, 1, 1, 1, 1, 2, 2]);
    expect(Array.from(evaluate(MODULE.highest, [xs], [1]))).toEqual(Array.from(xs));
  });
});
