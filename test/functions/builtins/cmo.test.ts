import { describe, expect, it } from "vitest";
import { cmo } from "../../../src/functions/builtins/cmo.js";
import { BARS, PLAIN, checkContract, evaluate, expectClose, series, withNaN } from "../../kit/index.js";

/** TradingView's ta.cmo, transcribed: sm1 = Σ(mom ≥ 0 ? mom : 0), sm2 = Σ(mom ≥ 0 ? 0 : −mom). */
function tradingView(src: Float64Array, n: number): Float64Array {
  return series(src.length, n, (i) => {
    let sm1 = 0;
    let sm2 = 0;
    for (let j = i - n + 1; j <= i; j++) {
      const mom = src[j]! - src[j - 1]!;
      sm1 += mom >= 0 ? mom : 0;
      sm2 += mom >= 0 ? 0 : -mom;
    }
    return sm1 + sm2 === 0 ? NaN : (100 * (sm1 - sm2)) / (sm1 + sm2);
  });
}

describe("cmo", () => {
  it("equals TradingView's ta.cmo (plain sums of up and down changes) at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 9, 14, 20]) expectClose(evaluate(cmo, [bars.close], [n]), tradingView(bars.close, n), { rel: 1e-9, floor: 1 }, `cmo(${n})`);
  });

  it("works Chande's definition by hand (not TA-Lib's smoothed CMO)", () => {
    // Source: Chande & Kroll, The New Technical Trader (1994), via Achelis: CMO =
    // 100·(Su − Sd)/(Su + Sd) over n changes. Closes 10, 11, 13, 12, 12, 15 with n = 3:
    // bar 3: changes +1, +2, −1 → Su 3, Sd 1 → 50; bar 4: +2, −1, 0 → 100/3;
    // bar 5: −1, 0, +3 → 50. A Wilder-smoothed CMO (TA-Lib) gives other numbers from bar 4.
    const close = Float64Array.from([10, 11, 13, 12, 12, 15]);
    const ours = evaluate(cmo, [close], [3]);
    expect(Array.from(ours.subarray(0, 3)).every(Number.isNaN)).toBe(true);
    expect(ours[3]).toBe(50);
    expect(ours[4]).toBeCloseTo(100 / 3, 12);
    expect(ours[5]).toBe(50);
  });

  it("is first defined at bar n and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 14, 50]) checkContract(cmo, [bars.close], [n]);
  });

  it("is undefined when nothing changed in the window (0/0) and while a NaN is in it", () => {
    const flat = new Float64Array(20).fill(7);
    expect(Array.from(evaluate(cmo, [flat], [5])).every(Number.isNaN)).toBe(true);
    const ours = evaluate(cmo, [withNaN(PLAIN[0]!.close, [100])], [14]);
    for (let i = 100; i < 115; i++) expect(ours[i], `#${i}`).toBeNaN();
    expect(ours[99]).not.toBeNaN();
    expect(ours[115]).not.toBeNaN();
  });
});
