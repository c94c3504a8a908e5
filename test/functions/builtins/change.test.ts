/**
 * `change`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { ROC } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, LENGTHS, alignEnd, disagreements, expectAgreement, floorOf, run, values } from "../series.js";

const N = FIXTURES[0]!.close.length;

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("change(close, %i) = close − close[n], and equals roc · close[n] / 100", (n) => {
    const ours = run(kernels.change, [close], [n]);
    const expected = close.map((c, i) => (i < n ? NaN : c - close[i - n]!));
    expectAgreement(ours, expected, floor);
    const roc = alignEnd(ROC.calculate({ period: n, values: values(close) }), N);
    const viaRoc = roc.map((r, i) => (r * close[i - n]!) / 100);
    const { bad } = disagreements(ours, viaRoc, 1e-9, floor);
    expect(bad).toEqual([]);
  });
});
