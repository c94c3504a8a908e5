import { describe, expect, it } from "vitest";
import { dema } from "../../../src/functions/builtins/dema.js";
import { cascadeConvergenceBars } from "../../../src/functions/shared/convergence.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("dema", () => {
  it("is 2·ema(src, n) − ema(ema(src, n), n), each EMA seeded with its first n inputs' mean (TA-Lib DEMA)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 5, 14]) {
        const e1 = emaOf(bars.close, n);
        const e2 = emaOf(e1, n);
        const expected = e1.map((v, i) => 2 * v - e2[i]!);
        expectClose(evaluate(dema, inputsOf(dema, bars), [n]), expected, { rel: 1e-9, floor: 1e-300 }, `dema(${n})`);
      }
  });

  it("works a small case by hand: a straight line is followed without lag once seeded", () => {
    // n = 2, alpha = 2/3. e1: bar 1 = mean(1, 2) = 1.5; bar 2 = 1.5 + 2/3·1.5 = 2.5. e2 seeds at
    // bar 2 with mean(1.5, 2.5) = 2, so DEMA = 2·2.5 − 2 = 3. Bar 3: e1 = 3.5, e2 = 2 + 2/3·1.5 = 3,
    // DEMA = 4.
    expect(Array.from(evaluate(dema, inputsOf(dema, columns({ close: [1, 2, 3, 4] })), [2]))).toEqual([NaN, NaN, 3, 4]);
  });

  it("is first defined at bar 2n − 2 (L = 2n − 1), after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 3, 20]) checkContract(dema, inputsOf(dema, bars), [n]);
    const warming = emaOf(PLAIN[0]!.close, 10); // defined from bar 9
    const out = evaluate(dema, inputsOf(dema, PLAIN[0]!, [warming]), [5]);
    expect(out.findIndex((v) => !Number.isNaN(v))).toBe(9 + 8);
  });

  it("is the price on a flat series, and NaN from a NaN bar on (it poisons both averages)", () => {
    expect(Array.from(evaluate(dema, inputsOf(dema, flatBars(12)), [3])).slice(4)).toEqual(Array(8).fill(42));
    const out = evaluate(dema, inputsOf(dema, columnsWithNaN(PLAIN[0]!, [60])), [5]);
    expect(out[59]).not.toBeNaN();
    for (let i = 60; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("asks for the warm-up of 2 EMAs in series, longer than one EMA's", () => {
    expect(dema.warmup!([20], 3_600_000)).toBe(cascadeConvergenceBars(2 / 21, 2));
    expect(dema.warmup!([20], 3_600_000)).toBeGreaterThan(Math.ceil(Math.log(1e-6) / Math.log(1 - 2 / 21)));
  });

  it("gives the same value through compile().run", () => {
    const bars = PLAIN[0]!;
    const all = evaluate(dema, inputsOf(dema, bars), [9]);
    expect(latestThroughRun("dema(close, 9)", bars)).toBeCloseTo(all.at(-1)!, 9);
  });
});
