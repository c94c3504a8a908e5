import { describe, expect, it } from "vitest";
import { adosc } from "../../../src/functions/builtins/adosc.js";
import { ad } from "../../../src/functions/builtins/ad.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, type Columns } from "../../kit/index.js";

/** TA-Lib's ADOSC written out: both EMAs start at the first A/D value; reported from bar max − 1. */
function chaikin(c: Columns, fast: number, slow: number): Float64Array {
  const line = evaluate(ad, inputsOf(ad, c), []);
  const out = new Float64Array(line.length).fill(NaN);
  const kf = 2 / (fast + 1);
  const ks = 2 / (slow + 1);
  let ef = line[0]!;
  let es = line[0]!;
  for (let i = 1; i < line.length; i++) {
    ef = kf * line[i]! + (1 - kf) * ef;
    es = ks * line[i]! + (1 - ks) * es;
    if (i >= Math.max(fast, slow) - 1) out[i] = ef - es;
  }
  if (Math.max(fast, slow) === 1) out[0] = 0;
  return out;
}

describe("adosc", () => {
  it("is ema(ad, fast) − ema(ad, slow), both EMAs started from the first A/D value (TA-Lib ADOSC)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [f, s] of [[3, 10], [10, 3], [1, 1], [5, 5]] as const) {
        // The oscillator is a small difference of two large running totals: compare at the A/D scale.
        const scale = Math.max(...evaluate(ad, inputsOf(ad, bars), []).map(Math.abs));
        expectClose(evaluate(adosc, inputsOf(adosc, bars), [f, s]), chaikin(bars, f, s), { rel: 1e-12, floor: scale }, `adosc(${f}, ${s})`);
      }
  });

  it("works a small case by hand", () => {
    // A/D: +50, +50, −150 (see ad). fast 1 (k = 1) follows the line; slow 2 (k = 2/3):
    // bar 1: 2/3·50 + 1/3·50 = 50 → 0; bar 2: 2/3·(−150) + 1/3·50 = −250/3 → −150 + 250/3 = −200/3.
    const c = columns({ high: [10, 10, 12], low: [8, 10, 10], close: [9.5, 10, 10], volume: [100, 100, 200] });
    const out = evaluate(adosc, inputsOf(adosc, c), [1, 2]);
    expect(out[0]).toBeNaN();
    expect(out[1]).toBe(0);
    expect(out[2]).toBeCloseTo(-200 / 3, 12);
  });

  it("is first defined at bar max(fast, slow) − 1, keeps the kernel contract, is 0 on a flat market", () => {
    for (const bars of PLAIN) for (const k of [[3, 10], [10, 3], [1, 1]]) checkContract(adosc, inputsOf(adosc, bars), k);
    expect(Array.from(evaluate(adosc, inputsOf(adosc, flatBars(5)), [2, 3])).slice(2)).toEqual([0, 0, 0]);
  });

  it("is NaN from a NaN bar on", () => {
    const out = evaluate(adosc, inputsOf(adosc, columnsWithNaN(PLAIN[0]!, [100])), [3, 10]);
    expect(out[99]).not.toBeNaN();
    for (let i = 100; i < out.length; i++) expect(out[i]).toBeNaN();
  });

  it("asks for the slow EMA's warm-up, and gives the same value through compile().run", () => {
    expect(adosc.warmup!([3, 10], 3_600_000)).toBe(Math.ceil(Math.log(1e-6) / Math.log(1 - 2 / 11)));
    expect(latestThroughRun("adosc(3, 10)", PLAIN[0]!)).toBe(evaluate(adosc, inputsOf(adosc, PLAIN[0]!), [3, 10]).at(-1));
  });
});
