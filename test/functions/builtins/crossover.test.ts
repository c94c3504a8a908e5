/**
 * `crossover`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { CrossDown, CrossUp } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, MODULE, evaluate, firstDefined } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;

  it("crossover/crossunder of ema(9) and ema(21) follow the definition and CrossUp/CrossDown past bar 0", () => {
    const fast = evaluate(MODULE.ema, [close], [9]);
    const slow = evaluate(MODULE.ema, [close], [21]);
    const up = evaluate(MODULE.crossover, [fast, slow], []);
    const down = evaluate(MODULE.crossunder, [fast, slow], []);
    for (let i = 0; i < N; i++) {
      const defined = i > 0;
      expect(up[i]).toBe(defined && fast[i]! > slow[i]! && fast[i - 1]! <= slow[i - 1]! ? 1 : 0);
      expect(down[i]).toBe(defined && fast[i]! < slow[i]! && fast[i - 1]! >= slow[i - 1]! ? 1 : 0);
    }
    // The package needs defined lines; from the slow EMA's first bar on, and with no ties in
    // random data, its CrossUp/CrossDown agree with the definition except on its own bar 0.
    const start = firstDefined(slow);
    const a = Array.from(fast).slice(start);
    const b = Array.from(slow).slice(start);
    const refUp = CrossUp.calculate({ lineA: a, lineB: b });
    const refDown = CrossDown.calculate({ lineA: a, lineB: b });
    for (let j = 1; j < a.length; j++) {
      expect(up[start + j]).toBe(refUp[j] ? 1 : 0);
      expect(down[start + j]).toBe(refDown[j] ? 1 : 0);
    }
    expect(up.reduce((s, v) => s + v, 0) + down.reduce((s, v) => s + v, 0)).toBeGreaterThan(0);
  });
});

describe("crossover and crossunder", () => {
  it("fire on the bar a moves above (below) b; a tie before counts as not above (not below)", () => {
    const a = Float64Array.from([1, 2, 2, 3, 1]);
    const b = Float64Array.from([2, 2, 1, 1, 2]);
    expect(Array.from(evaluate(MODULE.crossover, [a, b], []))).toEqual([0, 0, 1, 0, 0]);
    expect(Array.from(evaluate(MODULE.crossunder, [a, b], []))).toEqual([0, 0, 0, 0, 1]);
  });

  it("a touch and go (above, tie, above) is a crossover, as in TradingView", () => {
    const a = Float64Array.from([3, 2, 3]);
    const b = Float64Array.from([2, 2, 2]);
    expect(Array.from(evaluate(MODULE.crossover, [a, b], []))).toEqual([0, 0, 1]);
    expect(Array.from(evaluate(MODULE.crossunder, [b, a], []))).toEqual([0, 0, 1]);
    // technicalindicators looks through the tie to the bar before (no cross) and fires on bar 0.
    expect(CrossUp.calculate({ lineA: Array.from(a), lineB: Array.from(b) })).toEqual([true, false, false]);
    expect(CrossDown.calculate({ lineA: Array.from(b), lineB: Array.from(a) })).toEqual([true, false, false]);
  });

  it("are 0, never NaN, at bar 0 and wherever an operand is undefined now or on the previous bar", () => {
    const a = Float64Array.from([5, NaN, 5, 1, 5, 5]);
    const b = Float64Array.from([1, 3, 3, 3, NaN, 3]);
    // Bar 0 has no previous bar even though a > b there.
    expect(Array.from(evaluate(MODULE.crossover, [a, b], []))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Array.from(evaluate(MODULE.crossunder, [a, b], []))).toEqual([0, 0, 0, 1, 0, 0]);
    const nan = new Float64Array(4).fill(NaN);
    expect(Array.from(evaluate(MODULE.crossover, [nan, nan], []))).toEqual([0, 0, 0, 0]);
  });

  it("are 0 wherever an operand is ±Infinity now or on the previous bar (a division by zero compares false)", () => {
    // Without the finiteness check, -Infinity → 5 would be a crossover of 3 and 5 → -Infinity a crossunder.
    const a = Float64Array.from([1, -Infinity, 5, 1, Infinity, 1, 5]);
    const b = Float64Array.from([3, 3, 3, 3, 3, 3, 3]);
    expect(Array.from(evaluate(MODULE.crossover, [a, b], []))).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(evaluate(MODULE.crossunder, [a, b], []))).toEqual([0, 0, 0, 1, 0, 0, 0]);
    const inf = Float64Array.from([Infinity, Infinity, Infinity]);
    expect(Array.from(evaluate(MODULE.crossover, [inf, Float64Array.from([1, 2, 3])], []))).toEqual([0, 0, 0]);
  });
});
