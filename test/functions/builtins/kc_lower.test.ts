import { describe, expect, it } from "vitest";
import { kc_lower } from "../../../src/functions/builtins/kc_lower.js";
import { kc_upper } from "../../../src/functions/builtins/kc_upper.js";
import { BARS, PLAIN, atrOf, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("kc_lower", () => {
  it("is ema(src, n) − mult·atr(n) from bar n on (TradingView's Keltner channel with ATR bands)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, m] of [[1, 2], [20, 2], [14, 0]] as const) {
        const ema = emaOf(bars.close, n);
        const atr = atrOf(bars, n);
        expectClose(evaluate(kc_lower, inputsOf(kc_lower, bars), [n, m]), ema.map((e, i) => e - m * atr[i]!), { rel: 1e-9, floor: 1e-300 }, `kc_lower(${n}, ${m})`);
      }
  });

  it("works a small case by hand and mirrors kc_upper around the EMA", () => {
    // n = 2, mult 2 on the bars of kc_upper's case: EMA 11.5, ATR 2 → 7.5.
    const c = columns({ high: [11, 12, 13], low: [9, 10, 11], close: [10, 11, 12] });
    expect(evaluate(kc_lower, inputsOf(kc_lower, c), [2, 2])[2]).toBeCloseTo(7.5, 13);
    const up = evaluate(kc_upper, inputsOf(kc_upper, PLAIN[1]!), [10, 1.5]);
    const down = evaluate(kc_lower, inputsOf(kc_lower, PLAIN[1]!), [10, 1.5]);
    const mid = emaOf(PLAIN[1]!.close, 10);
    for (let i = 10; i < mid.length; i++) expect((up[i]! + down[i]!) / 2).toBeCloseTo(mid[i]!, 9);
  });

  it("is first defined at bar n, keeps the kernel contract, is the price when flat and NaN from a NaN bar on", () => {
    for (const bars of PLAIN) for (const [n, m] of [[1, 2], [20, 2]] as const) checkContract(kc_lower, inputsOf(kc_lower, bars), [n, m]);
    expect(Array.from(evaluate(kc_lower, inputsOf(kc_lower, flatBars(5)), [2, 2])).slice(2)).toEqual([42, 42, 42]);
    const out = evaluate(kc_lower, inputsOf(kc_lower, columnsWithNaN(PLAIN[0]!, [77])), [20, 2]);
    for (let i = 77; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("kc_lower(hlc3, 20, 2)", PLAIN[0]!)).toBeCloseTo(
      evaluate(kc_lower, inputsOf(kc_lower, PLAIN[0]!, [PLAIN[0]!.close.map((c, i) => (PLAIN[0]!.high[i]! + PLAIN[0]!.low[i]! + c) / 3)]), [20, 2]).at(-1)!,
      9,
    );
  });
});
