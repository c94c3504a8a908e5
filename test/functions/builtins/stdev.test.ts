/**
 * `stdev`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { SD } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, floorOf, prng } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("stdev(close, %i) = SD (population)", (n) => {
    const ours = evaluate(MODULE.stdev, [close], [n]);
    expectClose(ours, alignEnd(SD.calculate({ period: n, values: Array.from(close) }), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});

describe("worked examples", () => {
  it("stdev is the population deviation: [2, 4, 4, 4, 5, 5, 7, 9] has σ = 2, bands 5 ± 2σ", () => {
    const xs = Float64Array.from([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(evaluate(MODULE.stdev, [xs], [8])[7]).toBe(2);
    expect(evaluate(MODULE.bb_upper, [xs], [8, 2])[7]).toBe(9);
    expect(evaluate(MODULE.bb_lower, [xs], [8, 2])[7]).toBe(1);
    // A negative multiplier swaps the bands rather than failing.
    expect(evaluate(MODULE.bb_upper, [xs], [8, -2])[7]).toBe(1);
  });
});

describe("accuracy", () => {
  const N = 300;

  it.each([20, 50])("stdev(%i) of prices near 1e9 equals stdev of the same prices shifted to 0 (E[x²] − E[x]² does not)", (n) => {
    const rand2 = prng(9);
    const big = new Float64Array(N);
    for (let i = 0; i < N; i++) big[i] = 1e9 + rand2() * 0.01;
    // Subtracting 1e9 from values within a factor of 2 of it is exact (Sterbenz).
    const shifted = big.map((v) => v - 1e9);
    const ours = evaluate(MODULE.stdev, [big], [n]);
    const reference = evaluate(MODULE.stdev, [shifted], [n]);
    let negativeTextbook = 0;
    for (let i = n - 1; i < N; i++) {
      expect(Math.abs(ours[i]! - reference[i]!) / reference[i]!).toBeLessThanOrEqual(1e-9);
      let s = 0;
      let s2 = 0;
      for (let j = i - n + 1; j <= i; j++) {
        s += big[j]!;
        s2 += big[j]! * big[j]!;
      }
      if (s2 / n - (s / n) ** 2 < 0) negativeTextbook++;
    }
    expect(negativeTextbook).toBeGreaterThan(0);
  });
});
