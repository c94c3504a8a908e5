import { describe, expect, it } from "vitest";
import { kama } from "../../../src/functions/builtins/kama.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun } from "../../kit/index.js";

/** Kaufman's procedure written out: ER over n changes, sc = (ER·(2/3 − 2/31) + 2/31)², seeded with src[n − 1]. */
function kaufman(x: Float64Array, n: number): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  let k = x[n - 1]!;
  for (let i = n; i < x.length; i++) {
    let path = 0;
    for (let j = i - n + 1; j <= i; j++) path += Math.abs(x[j]! - x[j - 1]!);
    const er = path === 0 ? 1 : Math.abs(x[i]! - x[i - n]!) / path;
    const sc = (er * (2 / 3 - 2 / 31) + 2 / 31) ** 2;
    out[i] = k = k + sc * (x[i]! - k);
  }
  return out;
}

describe("kama", () => {
  it("follows Kaufman's efficiency-ratio procedure at every bar (TA-Lib KAMA, fast 2, slow 30)", () => {
    for (const bars of [...BARS, ...PLAIN]) for (const n of [1, 2, 10, 30]) expectClose(evaluate(kama, inputsOf(kama, bars), [n]), kaufman(bars.close, n), { rel: 1e-9, floor: 1e-300 }, `kama(${n})`);
  });

  it("works a small case by hand", () => {
    // n = 2, closes 1, 2, 3, 3. Bar 2: seed 2, ER = |3 − 1|/(1 + 1) = 1, sc = (2/3)² = 4/9,
    // KAMA = 2 + 4/9 = 22/9. Bar 3: ER = |3 − 2|/(0 + 1) = 1, KAMA = 22/9 + 4/9·(3 − 22/9) = 218/81.
    const out = evaluate(kama, inputsOf(kama, columns({ close: [1, 2, 3, 3] })), [2]);
    expect(out[1]).toBeNaN();
    expect(out[2]).toBeCloseTo(22 / 9, 14);
    expect(out[3]).toBeCloseTo(218 / 81, 14);
    // Choppy: 1, 2, 1, 2 has ER = 0 at bar 3 (no net move over 2 changes), so the slow constant (2/31)².
    // Bar 2: seed 2, ER = |1 − 1|/(1 + 1) = 0, so KAMA = 2 + (2/31)²·(1 − 2): it barely moves.
    const chop = evaluate(kama, inputsOf(kama, columns({ close: [1, 2, 1, 2, 1] })), [2]);
    expect(chop[2]).toBeCloseTo(2 - (2 / 31) ** 2, 14);
  });

  it("is first defined at bar n (L = n + 1), after an input's own warm-up, and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 10, 30]) checkContract(kama, inputsOf(kama, bars), [n]);
    const warming = emaOf(PLAIN[0]!.close, 5); // defined from bar 4
    expect(evaluate(kama, inputsOf(kama, PLAIN[0]!, [warming]), [10]).findIndex((v) => !Number.isNaN(v))).toBe(14);
  });

  it("stays on the price in a flat market (ER of 0/0 is 1, TA-Lib's choice) and is NaN from a NaN bar on", () => {
    expect(Array.from(evaluate(kama, inputsOf(kama, flatBars(8)), [3])).slice(3)).toEqual(Array(5).fill(42));
    const out = evaluate(kama, inputsOf(kama, columnsWithNaN(PLAIN[0]!, [40])), [10]);
    expect(out[39]).not.toBeNaN();
    for (let i = 40; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("asks for a warm-up long enough for the slowest constant, and gives the same value through compile().run", () => {
    expect(kama.warmup!([10], 3_600_000)).toBe(Math.ceil(Math.log(1e-6) / Math.log(1 - (2 / 31) ** 2)));
    expect(latestThroughRun("kama(10)", PLAIN[1]!)).toBe(evaluate(kama, inputsOf(kama, PLAIN[1]!), [10]).at(-1));
  });
});
