/**
 * `abs`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { describe, expect, it } from "vitest";
import { BARS, MODULE, evaluate } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;

  it("abs, min and max are elementwise and propagate NaN", () => {
    const diff = evaluate(MODULE.change, [close], [1]);
    const absDiff = evaluate(MODULE.abs, [diff], []);
    const lo = evaluate(MODULE.min, [bars.open, close], []);
    const hi = evaluate(MODULE.max, [bars.open, diff], []);
    for (let i = 0; i < N; i++) {
      expect(absDiff[i]).toBe(Math.abs(diff[i]!));
      expect(lo[i]).toBe(Math.min(bars.open[i]!, close[i]!));
      expect(hi[i]).toBe(Math.max(bars.open[i]!, diff[i]!));
    }
    expect(absDiff[0]).toBeNaN();
    expect(hi[0]).toBeNaN();
  });
});
