/**
 * `wma`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { WMA } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, LENGTHS, alignEnd, expectAgreement, floorOf, run, values } from "../series.js";

const N = FIXTURES[0]!.close.length;

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("wma(close, %i) = WMA", (n) => {
    const ours = run(kernels.wma, [close], [n]);
    expectAgreement(ours, alignEnd(WMA.calculate({ period: n, values: values(close) }), N), floor);
  });
});
