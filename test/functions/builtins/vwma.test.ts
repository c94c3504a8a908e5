import { describe, expect, it } from "vitest";
import { vwma } from "../../../src/functions/builtins/vwma.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series } from "../../kit/index.js";

describe("vwma", () => {
  it("is Σ(src·volume)/Σvolume over n bars, undefined on zero volume (Pine's definition of ta.vwma)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 3, 20]) {
        const expected = series(bars.close.length, n - 1, (i) => {
          let pv = 0;
          let v = 0;
          for (let j = i - n + 1; j <= i; j++) {
            pv += bars.close[j]! * bars.volume[j]!;
            v += bars.volume[j]!;
          }
          return v === 0 ? NaN : pv / v;
        });
        expectClose(evaluate(vwma, inputsOf(vwma, bars), [n]), expected, { rel: 1e-9, floor: 1e-300 }, `vwma(${n})`);
      }
  });

  it("works a small case by hand", () => {
    // n = 2: closes 10, 20 with volumes 1, 3 → (10 + 60)/4 = 17.5; then 20, 30 with 3, 0 → 20.
    const out = evaluate(vwma, inputsOf(vwma, columns({ close: [10, 20, 30], volume: [1, 3, 0] })), [2]);
    expect(Array.from(out)).toEqual([NaN, 17.5, 20]);
  });

  it("is undefined where the window's volume is 0, and while a NaN bar is in it", () => {
    // The shared bars have zero volume on bars 20..29: a 5-bar window inside them has none.
    const out = evaluate(vwma, inputsOf(vwma, BARS[0]!), [5]);
    for (let i = 24; i < 30; i++) expect(out[i]).toBeNaN();
    expect(out[23]).not.toBeNaN();
    expect(out[30]).not.toBeNaN();
    const holed = evaluate(vwma, inputsOf(vwma, columnsWithNaN(PLAIN[0]!, [60])), [5]);
    for (let i = 60; i < 65; i++) expect(holed[i]).toBeNaN();
    expect(holed[65]).not.toBeNaN();
    expect(Array.from(evaluate(vwma, inputsOf(vwma, flatBars(6)), [3])).slice(2)).toEqual([42, 42, 42, 42]);
  });

  it("is first defined at bar n − 1, after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 5, 30]) checkContract(vwma, inputsOf(vwma, bars), [n]);
    const warming = emaOf(PLAIN[0]!.close, 5);
    expect(evaluate(vwma, inputsOf(vwma, PLAIN[0]!, [warming]), [10]).findIndex((v) => !Number.isNaN(v))).toBe(4 + 9);
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("vwma(hl2, 10)", PLAIN[0]!)).toBeCloseTo(
      evaluate(vwma, [PLAIN[0]!.high.map((h, i) => (h + PLAIN[0]!.low[i]!) / 2), PLAIN[0]!.volume], [10]).at(-1)!,
      9,
    );
  });
});
