/**
 * `highest`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { Highest, Lowest } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, LENGTHS, alignEnd, expectAgreement, f64, floorOf, list, run, values } from "../series.js";

const N = FIXTURES[0]!.close.length;

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("highest(high, %i) = Highest, lowest(low, %i) = Lowest", (n) => {
    expectAgreement(
      run(kernels.highest, [bars.high], [n]),
      alignEnd(Highest.calculate({ period: n, values: values(bars.high) }), N),
      floor,
    );
    expectAgreement(
      run(kernels.lowest, [bars.low], [n]),
      alignEnd(Lowest.calculate({ period: n, values: values(bars.low) }), N),
      floor,
    );
  });
});

describe("worked examples", () => {
  it("highest and lowest include the current bar", () => {
    const xs = f64([3, 1, 4, 1, 5, 9, 2, 6]);
    expect(list(run(kernels.highest, [xs], [3]))).toEqual([NaN, NaN, 4, 4, 5, 9, 9, 9]);
    expect(list(run(kernels.lowest, [xs], [3]))).toEqual([NaN, NaN, 1, 1, 1, 1, 2, 2]);
    expect(list(run(kernels.highest, [xs], [1]))).toEqual(list(xs));
  });
});
