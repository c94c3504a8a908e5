import { describe, expect, it } from "vitest";
import { tema } from "../../../src/functions/builtins/tema.js";
import { cascadeConvergenceBars } from "../../../src/functions/shared/convergence.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("tema", () => {
  it("is 3·e1 − 3·e2 + e3 for e1 = ema(src, n), e2 = ema(e1, n), e3 = ema(e2, n) (TA-Lib TEMA)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 5, 14]) {
        const e1 = emaOf(bars.close, n);
        const e2 = emaOf(e1, n);
        const e3 = emaOf(e2, n);
        const expected = e1.map((v, i) => 3 * v - 3 * e2[i]! + e3[i]!);
        expectClose(evaluate(tema, inputsOf(tema, bars), [n]), expected, { rel: 1e-9, floor: 1e-300 }, `tema(${n})`);
      }
  });

  it("works a small case by hand: a straight line is followed without lag once seeded", () => {
    // n = 2, alpha = 2/3, closes 1..5. e1 = 1.5, 2.5, 3.5, 4.5 from bar 1 (lag 0.5); e2 seeds at
    // bar 2 with mean(1.5, 2.5) = 2, then 3, 4 (lag 1); e3 seeds at bar 3 with mean(2, 3) = 2.5,
    // then 2.5 + 2/3·1.5 = 3.5 (lag 1.5). TEMA at bar 3 = 3·3.5 − 3·3 + 2.5 = 4; bar 4 = 13.5 − 12 + 3.5 = 5.
    expect(Array.from(evaluate(tema, inputsOf(tema, columns({ close: [1, 2, 3, 4, 5] })), [2]))).toEqual([NaN, NaN, NaN, 4, 5]);
  });

  it("is first defined at bar 3n − 3 (L = 3n − 2), after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 3, 20]) checkContract(tema, inputsOf(tema, bars), [n]);
    const warming = emaOf(PLAIN[1]!.close, 4); // defined from bar 3
    const out = evaluate(tema, inputsOf(tema, PLAIN[1]!, [warming]), [6]);
    expect(out.findIndex((v) => !Number.isNaN(v))).toBe(3 + 15);
  });

  it("is the price on a flat series, and NaN from a NaN bar on", () => {
    const flat = evaluate(tema, inputsOf(tema, flatBars(15)), [3]);
    for (let i = 6; i < 15; i++) expect(flat[i]).toBeCloseTo(42, 12);
    const out = evaluate(tema, inputsOf(tema, columnsWithNaN(PLAIN[0]!, [70])), [5]);
    expect(out[69]).not.toBeNaN();
    for (let i = 70; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("asks for the warm-up of 3 EMAs in series, longer than one EMA's", () => {
    expect(tema.warmup!([20], 3_600_000)).toBe(cascadeConvergenceBars(2 / 21, 3));
    expect(tema.warmup!([20], 3_600_000)).toBeGreaterThan(Math.ceil(Math.log(1e-6) / Math.log(1 - 2 / 21)));
  });

  it("gives the same value through compile().run", () => {
    const all = evaluate(tema, inputsOf(tema, PLAIN[2]!), [7]);
    expect(latestThroughRun("tema(7)", PLAIN[2]!)! / all.at(-1)!).toBeCloseTo(1, 12);
  });
});
