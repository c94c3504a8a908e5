/**
 * `abs`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, floorOf, run } from "../series.js";

const N = FIXTURES[0]!.close.length;

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it("abs, min and max are elementwise and propagate NaN", () => {
    const diff = run(kernels.change, [close], [1]);
    const absDiff = run(kernels.abs, [diff], []);
    const lo = run(kernels.min, [bars.open, close], []);
    const hi = run(kernels.max, [bars.open, diff], []);
    for (let i = 0; i < N; i++) {
      expect(absDiff[i]).toBe(Math.abs(diff[i]!));
      expect(lo[i]).toBe(Math.min(bars.open[i]!, close[i]!));
      expect(hi[i]).toBe(Math.max(bars.open[i]!, diff[i]!));
    }
    expect(absDiff[0]).toBeNaN();
    expect(hi[0]).toBeNaN();
  });
});
