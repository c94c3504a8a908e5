/**
 * `change`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { ROC } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, disagreements, evaluate, expectClose, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("change(close, %i) = close − close[n], and equals roc · close[n] / 100", (n) => {
    const ours = evaluate(MODULE.change, [close], [n]);
    const expected = close.map((c, i) => (i < n ? NaN : c - close[i - n]!));
    expectClose(ours, expected, { rel: 1e-9, floor: floor }, "against technicalindicators");
    const roc = alignEnd(ROC.calculate({ period: n, values: Array.from(close) }), N);
    const viaRoc = roc.map((r, i) => (r * close[i - n]!) / 100);
    const { bad } = disagreements(ours, viaRoc, { rel: 1e-9, floor: floor });
    expect(bad).toEqual([]);
  });
});
