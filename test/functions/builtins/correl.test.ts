import { describe, expect, it } from "vitest";
import { correl } from "../../../src/functions/builtins/correl.js";
import { BARS, PLAIN, checkContract, columns, emaOf, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMax, windowMin } from "../../kit/index.js";

/** Pearson's r of two windows in exact rationals (BigInt after scaling by powers of two), rounded once. */
function pearsonExact(a: ArrayLike<number>, b: ArrayLike<number>, i: number, n: number): number {
  if (windowMax(a, i, n) === windowMin(a, i, n) || windowMax(b, i, n) === windowMin(b, i, n)) return NaN;
  const ints = (x: ArrayLike<number>): bigint[] => {
    const xs = Array.from({ length: n }, (_, t) => x[i - n + 1 + t]!);
    const scale = 2 ** (60 - Math.ceil(Math.log2(Math.max(...xs.map(Math.abs), 1e-300))));
    return xs.map((v) => BigInt(Math.round(v * scale)));
  };
  const A = ints(a);
  const B = ints(b);
  const N = BigInt(n);
  const sa = A.reduce((p, v) => p + v, 0n);
  const sb = B.reduce((p, v) => p + v, 0n);
  // n²·cov = nΣab − ΣaΣb, and the same for the variances: exact in integers.
  const cov = N * A.reduce((p, v, t) => p + v * B[t]!, 0n) - sa * sb;
  const va = N * A.reduce((p, v) => p + v * v, 0n) - sa * sa;
  const vb = N * B.reduce((p, v) => p + v * v, 0n) - sb * sb;
  return Number(cov) / Math.sqrt(Number(va)) / Math.sqrt(Number(vb));
}

describe("correl", () => {
  it("is Pearson's correlation over n against exact arithmetic, undefined where either side is flat (TA-Lib CORREL)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 3, 20]) {
        const expected = series(bars.close.length, n - 1, (i) => pearsonExact(bars.high, bars.volume, i, n));
        expectClose(evaluate(correl, [bars.high, bars.volume], [n]), expected, { rel: 1e-9, floor: 1e-3 }, `correl(high, volume, ${n})`);
      }
  });

  it("works a small case by hand", () => {
    // a = 1, 2, 3; b = 2, 4, 7: deviations (−1, 0, 1) and (−7/3, −1/3, 8/3): Σ = 5, Σa'² = 2,
    // Σb'² = 114/9 → r = 5/√(2·114/9).
    const c = columns({ close: [1, 2, 3], high: [2, 4, 7] });
    expect(evaluate(correl, [c.close, c.high], [3])[2]).toBeCloseTo(5 / Math.sqrt((2 * 114) / 9), 14);
    // Two points always lie on a line: ±1 exactly.
    expect(Array.from(evaluate(correl, [c.close, Float64Array.from([3, 1, 0])], [2]))).toEqual([NaN, -1, -1]);
  });

  it("is undefined where a side is flat (TA-Lib writes 0), for n = 1, and while a NaN bar is in the window", () => {
    const flat = flatBars(6, 50_000.07);
    expect(Array.from(evaluate(correl, [flat.close, PLAIN[0]!.close.subarray(0, 6)], [3])).every(Number.isNaN)).toBe(true);
    expect(Array.from(evaluate(correl, [PLAIN[0]!.close, PLAIN[0]!.open], [1])).every(Number.isNaN)).toBe(true);
    const a = Float64Array.from(PLAIN[0]!.close);
    a[50] = NaN;
    const out = evaluate(correl, [a, PLAIN[0]!.open], [10]);
    for (let i = 50; i < 60; i++) expect(out[i]).toBeNaN();
    expect(out[49]).not.toBeNaN();
    expect(out[60]).not.toBeNaN();
  });

  it("is first defined at bar n − 1 (after either input's warm-up) and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [2, 20]) checkContract(correl, [bars.close, bars.volume], [n]);
    expect(evaluate(correl, [PLAIN[0]!.close, emaOf(PLAIN[0]!.close, 7)], [10]).findIndex((v) => !Number.isNaN(v))).toBe(15);
  });

  it("gives the same value through compile().run", () => {
    const bars = PLAIN[0]!;
    expect(latestThroughRun("correl(close, volume, 20)", bars)).toBe(evaluate(correl, inputsOf(correl, bars, [bars.close, bars.volume]), [20]).at(-1));
  });
});
