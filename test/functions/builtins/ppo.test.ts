import { describe, expect, it } from "vitest";
import { ppo } from "../../../src/functions/builtins/ppo.js";
import { ema } from "../../../src/functions/builtins/ema.js";
import { BARS, PLAIN, checkContract, evaluate, expectClose, series, withNaN } from "../../kit/index.js";

describe("ppo", () => {
  it("is 100·(ema(fast) − ema(slow))/ema(slow) at every bar, in either argument order", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const [a, b] of [[12, 26], [26, 12], [3, 10], [5, 5]] as const) {
        const fast = evaluate(ema, [bars.close], [Math.min(a, b)]);
        const slow = evaluate(ema, [bars.close], [Math.max(a, b)]);
        const expected = series(fast.length, Math.max(a, b) - 1, (i) => (100 * (fast[i]! - slow[i]!)) / slow[i]!);
        expectClose(evaluate(ppo, [bars.close], [a, b]), expected, { rel: 1e-9, floor: 1 }, `ppo(${a}, ${b})`);
      }
  });

  it("works a short case by hand", () => {
    // fast 1 (the price itself), slow 3 (alpha 1/2) on 4, 4, 4, 8: the slow EMA seeds at 4
    // on bar 2 and moves to 6 on bar 3; PPO = 100·(8 − 6)/6 = 33.33…, 0 on bar 2.
    const ours = evaluate(ppo, [Float64Array.from([4, 4, 4, 8])], [1, 3]);
    expect(ours[1]).toBeNaN();
    expect(ours[2]).toBe(0);
    expect(ours[3]).toBeCloseTo(100 / 3, 12);
  });

  it("is first defined at bar max(fast, slow) − 1 and keeps the kernel contract", () => {
    for (const bars of PLAIN) for (const consts of [[12, 26], [30, 2], [1, 1]]) checkContract(ppo, [bars.close], consts);
  });

  it("is 0 on a flat series, undefined on a zero slow average, and poisoned by a later NaN", () => {
    expect(Array.from(evaluate(ppo, [new Float64Array(30).fill(2)], [3, 5]).subarray(4))).toEqual(new Array(26).fill(0));
    expect(Array.from(evaluate(ppo, [new Float64Array(30)], [3, 5])).every(Number.isNaN)).toBe(true);
    const later = evaluate(ppo, [withNaN(PLAIN[0]!.close, [90])], [12, 26]);
    expect(later[89]).not.toBeNaN();
    expect(Array.from(later.subarray(90)).every(Number.isNaN)).toBe(true);
  });
});
