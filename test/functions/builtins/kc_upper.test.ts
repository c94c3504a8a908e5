import { describe, expect, it } from "vitest";
import { kc_upper } from "../../../src/functions/builtins/kc_upper.js";
import { BARS, PLAIN, atrOf, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

describe("kc_upper", () => {
  it("is ema(src, n) + mult·atr(n) from bar n on (TradingView's Keltner channel with ATR bands)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [n, m] of [[1, 2], [10, 1.5], [20, 2], [20, -1]] as const) {
        const ema = emaOf(bars.close, n);
        const atr = atrOf(bars, n);
        expectClose(evaluate(kc_upper, inputsOf(kc_upper, bars), [n, m]), ema.map((e, i) => e + m * atr[i]!), { rel: 1e-9, floor: 1e-300 }, `kc_upper(${n}, ${m})`);
      }
  });

  it("works a small case by hand", () => {
    // n = 2, mult 2. The EMA is seeded at bar 1 with mean(10, 11) = 10.5, then at bar 2
    // 10.5 + 2/3·(12 − 10.5) = 11.5.
    const c = columns({ high: [11, 12, 13], low: [9, 10, 11], close: [10, 11, 12] });
    const out = evaluate(kc_upper, inputsOf(kc_upper, c), [2, 2]);
    expect(out[1]).toBeNaN();
    // TR bar 1 = max(2, |12 − 10|, |10 − 10|) = 2; bar 2 = max(2, |13 − 11|, |11 − 11|) = 2 → ATR 2.
    expect(out[2]).toBeCloseTo(11.5 + 2 * 2, 13);
  });

  it("is first defined at bar L(src) + n − 1 (L = n + 1 on a raw source) and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const [n, m] of [[1, 2], [20, 2], [60, 1]] as const) checkContract(kc_upper, inputsOf(kc_upper, bars), [n, m]);
    // On an input defined from bar 9 (L = 10) the edge starts at bar 9 + n, one bar after the EMA could.
    const warming = emaOf(PLAIN[0]!.close, 10);
    expect(evaluate(kc_upper, inputsOf(kc_upper, PLAIN[0]!, [warming]), [5, 2]).findIndex((v) => !Number.isNaN(v))).toBe(14);
  });

  it("is the price on a flat market and NaN from a NaN bar on", () => {
    expect(Array.from(evaluate(kc_upper, inputsOf(kc_upper, flatBars(6)), [3, 2])).slice(3)).toEqual([42, 42, 42]);
    const out = evaluate(kc_upper, inputsOf(kc_upper, columnsWithNaN(PLAIN[0]!, [77])), [20, 2]);
    expect(out[76]).not.toBeNaN();
    for (let i = 77; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("kc_upper(20, 2)", PLAIN[0]!)).toBe(evaluate(kc_upper, inputsOf(kc_upper, PLAIN[0]!), [20, 2]).at(-1));
  });
});
