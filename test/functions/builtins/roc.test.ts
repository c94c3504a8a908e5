/**
 * `roc`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { ROC } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;

  it.each(LENGTHS)("roc(close, %i) = ROC (in percent)", (n) => {
    const ours = evaluate(MODULE.roc, [close], [n]);
    expectClose(ours, alignEnd(ROC.calculate({ period: n, values: Array.from(close) }), N), { rel: 1e-9, floor: 1e-3 }, "against technicalindicators");
  });
});

describe("worked examples", () => {
  it("roc is in percent and change is a plain difference", () => {
    const xs = Float64Array.from([10, 11, 12.1, 6.05]);
    const roc = evaluate(MODULE.roc, [xs], [1]);
    expect(roc[0]).toBeNaN();
    expect(roc[1]).toBeCloseTo(10, 12);
    expect(roc[2]).toBeCloseTo(10, 12);
    expect(roc[3]).toBeCloseTo(-50, 12);
    expect(Array.from(evaluate(MODULE.change, [xs], [2]))).toEqual([NaN, NaN, 12.1 - 10, 6.05 - 11]);
  });
});
