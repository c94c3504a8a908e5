/**
 * `crossover`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { CrossDown, CrossUp } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { KERNELS as kernels, FIXTURES, f64, firstDefined, floorOf, list, run, values } from "../series.js";

const N = FIXTURES[0]!.close.length;

describe.each(FIXTURES)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it("crossover/crossunder of ema(9) and ema(21) follow the definition and CrossUp/CrossDown past bar 0", () => {
    const fast = run(kernels.ema, [close], [9]);
    const slow = run(kernels.ema, [close], [21]);
    const up = run(kernels.crossover, [fast, slow], []);
    const down = run(kernels.crossunder, [fast, slow], []);
    for (let i = 0; i < N; i++) {
      const defined = i > 0;
      expect(up[i]).toBe(defined && fast[i]! > slow[i]! && fast[i - 1]! <= slow[i - 1]! ? 1 : 0);
      expect(down[i]).toBe(defined && fast[i]! < slow[i]! && fast[i - 1]! >= slow[i - 1]! ? 1 : 0);
    }
    // The package needs defined lines; from the slow EMA's first bar on, and with no ties in
    // random data, its CrossUp/CrossDown agree with the definition except on its own bar 0.
    const start = firstDefined(slow);
    const a = values(fast).slice(start);
    const b = values(slow).slice(start);
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
    const a = f64([1, 2, 2, 3, 1]);
    const b = f64([2, 2, 1, 1, 2]);
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 1, 0, 0]);
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 0, 0, 1]);
  });

  it("a touch and go (above, tie, above) is a crossover, as in TradingView", () => {
    const a = f64([3, 2, 3]);
    const b = f64([2, 2, 2]);
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 1]);
    expect(list(run(kernels.crossunder, [b, a], []))).toEqual([0, 0, 1]);
    // technicalindicators looks through the tie to the bar before (no cross) and fires on bar 0.
    expect(CrossUp.calculate({ lineA: list(a), lineB: list(b) })).toEqual([true, false, false]);
    expect(CrossDown.calculate({ lineA: list(b), lineB: list(a) })).toEqual([true, false, false]);
  });

  it("are 0, never NaN, at bar 0 and wherever an operand is undefined now or on the previous bar", () => {
    const a = f64([5, NaN, 5, 1, 5, 5]);
    const b = f64([1, 3, 3, 3, NaN, 3]);
    // Bar 0 has no previous bar even though a > b there.
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 0, 1, 0, 0]);
    const nan = new Float64Array(4).fill(NaN);
    expect(list(run(kernels.crossover, [nan, nan], []))).toEqual([0, 0, 0, 0]);
  });

  it("are 0 wherever an operand is ±Infinity now or on the previous bar (a division by zero compares false)", () => {
    // Without the finiteness check, -Infinity → 5 would be a crossover of 3 and 5 → -Infinity a crossunder.
    const a = f64([1, -Infinity, 5, 1, Infinity, 1, 5]);
    const b = f64([3, 3, 3, 3, 3, 3, 3]);
    expect(list(run(kernels.crossover, [a, b], []))).toEqual([0, 0, 0, 0, 0, 0, 1]);
    expect(list(run(kernels.crossunder, [a, b], []))).toEqual([0, 0, 0, 1, 0, 0, 0]);
    const inf = f64([Infinity, Infinity, Infinity]);
    expect(list(run(kernels.crossover, [inf, f64([1, 2, 3])], []))).toEqual([0, 0, 0]);
  });
});
