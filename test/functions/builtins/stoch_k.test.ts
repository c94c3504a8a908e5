import { describe, expect, it } from "vitest";
import { stoch_k } from "../../../src/functions/builtins/stoch_k.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, series, windowMax, windowMean, windowMin } from "../../kit/index.js";

/** Lane's slow %K from its definition: the SMA(smooth) of the raw %K over k bars. */
function reference(c: { high: Float64Array; low: Float64Array; close: Float64Array }, k: number, smooth: number): Float64Array {
  const n = c.close.length;
  const raw = series(n, k - 1, (i) => {
    const hh = windowMax(c.high, i, k);
    const ll = windowMin(c.low, i, k);
    return hh === ll ? NaN : (100 * (c.close[i]! - ll)) / (hh - ll);
  });
  return series(n, k + smooth - 2, (i) => windowMean(raw, i, smooth));
}

describe("stoch_k", () => {
  it("is SMA(smooth) of 100·(close − lowest low)/(highest high − lowest low) at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [k, smooth] of [[14, 3], [5, 1], [9, 4], [1, 1]] as const) {
        const ours = evaluate(stoch_k, inputsOf(stoch_k, bars), [k, smooth]);
        expect(expectClose(ours, reference(bars, k, smooth), { rel: 1e-9, floor: 1 }, `stoch_k(${k}, ${smooth})`)).toBeGreaterThan(200);
      }
  });

  it("works a small case by hand", () => {
    // k = 3, smooth = 2. Bar 2: range [8, 12], close 11 → 75; bar 3: [9, 13], close 10 → 25;
    // bar 4: [9, 13], close 13 → 100. Slow %K: (75 + 25)/2 = 50 at bar 3, (25 + 100)/2 = 62.5.
    const c = columns({ high: [10, 12, 11, 13, 12], low: [8, 9, 9, 10, 11], close: [9, 11, 11, 10, 13] });
    const ours = evaluate(stoch_k, inputsOf(stoch_k, c), [3, 2]);
    expect(Array.from(ours)).toEqual([NaN, NaN, NaN, 50, 62.5]);
  });

  it("is first defined at bar L − 1 = k + smooth − 2 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const consts of [[14, 3], [5, 1], [2, 7]]) checkContract(stoch_k, inputsOf(stoch_k, bars), consts);
    for (const bars of BARS) checkContract(stoch_k, inputsOf(stoch_k, bars), [14, 3], { gaps: true });
  });

  it("is undefined where the k-bar range is 0 (a flat stretch), where TA-Lib writes 0", () => {
    expect(Array.from(evaluate(stoch_k, inputsOf(stoch_k, flatBars(30)), [5, 3])).every(Number.isNaN)).toBe(true);
    // BARS[0] is flat on bars 120..149: from bar 124 the 5-bar range is 0.
    const ours = evaluate(stoch_k, inputsOf(stoch_k, BARS[0]!), [5, 1]);
    for (let i = 124; i < 150; i++) expect(ours[i]).toBeNaN();
    expect(ours[118]).not.toBeNaN();
  });

  it("is undefined while a NaN bar is inside the window, and recovers after", () => {
    const bars = columnsWithNaN(PLAIN[0]!, [100]);
    const ours = evaluate(stoch_k, inputsOf(stoch_k, bars), [14, 3]);
    for (let i = 100; i < 100 + 14 + 3 - 1; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[99]).not.toBeNaN();
    expect(ours[116]).not.toBeNaN();
  });
});
