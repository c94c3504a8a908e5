import { describe, expect, it } from "vitest";
import { mfi } from "../../../src/functions/builtins/mfi.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series } from "../../kit/index.js";

/** MFI from Achelis' definition: 100 − 100/(1 + positive flow/negative flow), 100 with no negative flow. */
function reference(c: { high: Float64Array; low: Float64Array; close: Float64Array; volume: Float64Array }, n: number): Float64Array {
  const tp = c.close.map((x, i) => (c.high[i]! + c.low[i]! + x) / 3);
  return series(tp.length, n, (i) => {
    let pos = 0;
    let neg = 0;
    for (let j = i - n + 1; j <= i; j++) {
      if (tp[j]! > tp[j - 1]!) pos += tp[j]! * c.volume[j]!;
      else if (tp[j]! < tp[j - 1]!) neg += tp[j]! * c.volume[j]!;
    }
    if (pos + neg === 0) return NaN;
    return neg === 0 ? 100 : 100 - 100 / (1 + pos / neg);
  });
}

describe("mfi", () => {
  it("is the money-flow ratio of Achelis' definition at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14, 25]) expectClose(evaluate(mfi, inputsOf(mfi, bars), [n]), reference(bars, n), { rel: 1e-9, floor: 1 }, `mfi(${n})`);
  });

  it("counts an unchanged typical price as neither flow (a hand case)", () => {
    // n = 3; typical prices 10, 11, 11, 10.5 with volumes 1, 2, 5, 4: bar 1 +22, bar 2 none
    // (equal tp), bar 3 −42. MFI at bar 3 = 100·22/(22 + 42) = 34.375.
    const c = columns({ close: [10, 11, 11, 10.5], volume: [1, 2, 5, 4] });
    expect(Array.from(evaluate(mfi, inputsOf(mfi, c), [3]))).toEqual([NaN, NaN, NaN, 34.375]);
  });

  it("keeps the exact ratio on tiny flows, where TA-Lib writes 0 when the total is below 1", () => {
    // Flows of 1e-4 on a sub-penny price: 2 of 3 bars up → exactly 2/3.
    const c = columns({ close: [0.001, 0.002, 0.001, 0.002, 0.003], volume: [0.1, 0.1, 0.2, 0.1, 0.1] });
    const ours = evaluate(mfi, inputsOf(mfi, c), [3]);
    // Bar 3: +0.0002 (bar 1), −0.0002 (bar 2), +0.0002 (bar 3) → 2/3 positive.
    expect(ours[3]).toBeCloseTo((100 * 2) / 3, 9);
    expect(ours[4]).toBeGreaterThan(0);
  });

  it("is first defined at bar n and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 14, 40]) checkContract(mfi, inputsOf(mfi, bars), [n]);
  });

  it("is undefined with no flow at all: a flat series, or zero volume across the window", () => {
    expect(Array.from(evaluate(mfi, inputsOf(mfi, flatBars(20)), [5])).every(Number.isNaN)).toBe(true);
    // BARS have zero volume on bars 20..29: a 5-bar window inside them has no flow.
    const ours = evaluate(mfi, inputsOf(mfi, BARS[0]!), [5]);
    for (let i = 24; i < 30; i++) expect(ours[i]).toBeNaN();
    expect(ours[19]).not.toBeNaN();
  });

  it("is undefined while a NaN bar (or the bar before it) is in the window", () => {
    const ours = evaluate(mfi, inputsOf(mfi, columnsWithNaN(PLAIN[0]!, [60])), [14]);
    for (let i = 60; i < 75; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[59]).not.toBeNaN();
    expect(ours[75]).not.toBeNaN();
  });
});
