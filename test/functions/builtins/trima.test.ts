import { describe, expect, it } from "vitest";
import { trima } from "../../../src/functions/builtins/trima.js";
import { BARS, PLAIN, checkContract, columns, columnsWithNaN, evaluate, expectClose, flatBars, inputsOf, latestThroughRun, series, windowMean } from "../../kit/index.js";

describe("trima", () => {
  it("is the SMA of an SMA: SMA((n+1)/2) of SMA((n+1)/2) for odd n, SMA(n/2 + 1) of SMA(n/2) for even n (TA-Lib TRIMA)", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 4, 5, 10, 15]) {
        const a = n % 2 === 1 ? (n + 1) / 2 : n / 2;
        const b = n % 2 === 1 ? (n + 1) / 2 : n / 2 + 1;
        const inner = series(bars.close.length, a - 1, (i) => windowMean(bars.close, i, a));
        const expected = series(bars.close.length, n - 1, (i) => windowMean(inner, i, b));
        expectClose(evaluate(trima, inputsOf(trima, bars), [n]), expected, { rel: 1e-9, floor: 1e-300 }, `trima(${n})`);
      }
  });

  it("works the weights by hand: 1,2,2,1 for n = 4 and 1,2,3,2,1 for n = 5", () => {
    // n = 4 over 1, 2, 3, 4: (1 + 4 + 6 + 4)/6 = 2.5. n = 5 over 1..5: (1 + 4 + 9 + 8 + 5)/9 = 3.
    const c = columns({ close: [1, 2, 3, 4, 5] });
    expect(evaluate(trima, inputsOf(trima, c), [4])[3]).toBe(2.5);
    expect(evaluate(trima, inputsOf(trima, c), [5])[4]).toBe(3);
    // A spike weighs least at the window's ends: 10 at the newest of n = 5 adds 10/9, in the middle 30/9.
    const spikeNew = columns({ close: [0, 0, 0, 0, 10] });
    const spikeMid = columns({ close: [0, 0, 10, 0, 0] });
    expect(evaluate(trima, inputsOf(trima, spikeNew), [5])[4]).toBeCloseTo(10 / 9, 14);
    expect(evaluate(trima, inputsOf(trima, spikeMid), [5])[4]).toBeCloseTo(30 / 9, 14);
  });

  it("is first defined at bar n − 1 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const n of [1, 6, 31]) checkContract(trima, inputsOf(trima, bars), [n]);
  });

  it("is exactly the price on a flat series and undefined while a NaN bar is in the window", () => {
    expect(Array.from(evaluate(trima, inputsOf(trima, flatBars(10)), [4])).slice(3)).toEqual(Array(7).fill(42));
    const out = evaluate(trima, inputsOf(trima, columnsWithNaN(PLAIN[0]!, [50])), [6]);
    expect(out[49]).not.toBeNaN();
    for (let i = 50; i < 56; i++) expect(out[i]).toBeNaN();
    expect(out[56]).not.toBeNaN();
  });

  it("gives the same value through compile().run", () => {
    expect(latestThroughRun("trima(8)", PLAIN[0]!)).toBe(evaluate(trima, inputsOf(trima, PLAIN[0]!), [8]).at(-1));
  });
});
