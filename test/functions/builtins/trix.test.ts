import { describe, expect, it } from "vitest";
import { trix } from "../../../src/functions/builtins/trix.js";
import { BARS, PLAIN, checkContract, evaluate, expectClose, series, withNaN } from "../../kit/index.js";

/** An EMA seeded with the SMA of its first n defined values, from its definition. */
function emaOf(x: Float64Array, n: number): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  let f = 0;
  while (f < x.length && Number.isNaN(x[f]!)) f++;
  if (f + n - 1 >= x.length) return out;
  let e = 0;
  for (let j = f; j < f + n; j++) e += x[j]!;
  e /= n;
  out[f + n - 1] = e;
  for (let i = f + n; i < x.length; i++) out[i] = e = e + (2 / (n + 1)) * (x[i]! - e);
  return out;
}

describe("trix", () => {
  it("is 100·(e/e[1] − 1) of the triple EMA at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 5, 15, 30]) {
        const e = emaOf(emaOf(emaOf(bars.close, n), n), n);
        const expected = series(e.length, 3 * n - 2, (i) => 100 * (e[i]! / e[i - 1]! - 1));
        // TRIX is a small difference of nearly equal EMAs: 1e-9 absolute (in percent) near 0.
        expectClose(evaluate(trix, [bars.close], [n]), expected, { rel: 1e-9, floor: 1 }, `trix(${n})`);
      }
  });

  it("works a short case by hand", () => {
    // n = 2 (alpha 2/3) on 1, 2, 3, 4, 5: e1 = 1.5, 2.5, 3.5, 4.5 from bar 1 (a ramp stays a
    // lagged ramp); e2 from bar 2 = 2, 3, 4; e3 from bar 3 = 2.5, 3.5. TRIX at bar 4 =
    // 100·(3.5/2.5 − 1) = 40.
    const ours = evaluate(trix, [Float64Array.from([1, 2, 3, 4, 5])], [2]);
    expect(Array.from(ours.subarray(0, 4)).every(Number.isNaN)).toBe(true);
    expect(ours[4]).toBeCloseTo(40, 10);
  });

  it("is first defined at bar 3n − 2 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 9, 30]) checkContract(trix, [bars.close], [n]);
  });

  it("is 0 on a flat series and undefined where the triple EMA is 0 (a zero denominator)", () => {
    const flat = evaluate(trix, [new Float64Array(40).fill(9)], [5]);
    expect(Array.from(flat.subarray(13))).toEqual(new Array(27).fill(0));
    const zero = evaluate(trix, [new Float64Array(20)], [2]);
    expect(Array.from(zero).every(Number.isNaN)).toBe(true);
  });

  it("skips leading NaN and is poisoned by a NaN after the start", () => {
    const lead = evaluate(trix, [withNaN(PLAIN[0]!.close, [0, 1, 2, 3])], [5]);
    expect(lead.findIndex((v) => !Number.isNaN(v))).toBe(4 + 3 * 5 - 2);
    const later = evaluate(trix, [withNaN(PLAIN[0]!.close, [100])], [5]);
    expect(later[99]).not.toBeNaN();
    expect(Array.from(later.subarray(100)).every(Number.isNaN)).toBe(true);
  });

  it("declares a warm-up longer than one EMA's, for three EMAs in a row", () => {
    const single = Math.ceil(Math.log(1e-6) / Math.log(1 - 2 / 16));
    expect(trix.warmup!([15], 3_600_000)).toBeGreaterThan(single);
    expect(trix.warmup!([15], 3_600_000)).toBeLessThan(3 * single);
  });
});
