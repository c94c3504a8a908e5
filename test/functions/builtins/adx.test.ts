import { describe, expect, it } from "vitest";
import { adx } from "../../../src/functions/builtins/adx.js";
import { dx } from "../../../src/functions/builtins/dx.js";
import { minus_di } from "../../../src/functions/builtins/minus_di.js";
import { plus_di } from "../../../src/functions/builtins/plus_di.js";
import { BARS, PLAIN, checkContract, columns, evaluate, expectClose, flatBars, inputsOf, wilder } from "../../kit/index.js";

// (high, low, close): (10, 8, 9), (11, 9, 10), (12, 10, 11), (11, 9, 10). With n = 2:
// bar 1: +DM 1, TR 2 (the seed sums); bar 2: +DM 1, TR 2 → S+ = 1 − 1/2 + 1 = 1.5, STR = 3:
// +DI 50, −DI 0, DX 100; bar 3: −DM 1, TR 2 → S+ 0.75, S− 1, STR 3.5: +DI 150/7 = 21.43,
// −DI 200/7 = 28.57, DX = 100·(50/7)/50 = 100/7; ADX(2) at bar 3 = (100 + 100/7)/2 = 400/7.
const HAND = columns({ high: [10, 11, 12, 11], low: [8, 9, 10, 9], close: [9, 10, 11, 10] });

describe("adx, dx, plus_di, minus_di", () => {
  it("follow Wilder's procedure at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [1, 2, 14, 25]) {
        const w = wilder(bars, n);
        expectClose(evaluate(plus_di, inputsOf(plus_di, bars), [n]), w.plus, { rel: 1e-9, floor: 1 }, `plus_di(${n})`);
        expectClose(evaluate(minus_di, inputsOf(minus_di, bars), [n]), w.minus, { rel: 1e-9, floor: 1 }, `minus_di(${n})`);
        expectClose(evaluate(dx, inputsOf(dx, bars), [n]), w.dx, { rel: 1e-9, floor: 1 }, `dx(${n})`);
        expectClose(evaluate(adx, inputsOf(adx, bars), [n]), w.adx, { rel: 1e-9, floor: 1 }, `adx(${n})`);
      }
  });

  it("work a hand case", () => {
    expect(Array.from(evaluate(plus_di, inputsOf(plus_di, HAND), [2]))).toEqual([NaN, NaN, 50, 150 / 7]);
    expect(evaluate(minus_di, inputsOf(minus_di, HAND), [2])[3]).toBeCloseTo(200 / 7, 12);
    expect(evaluate(dx, inputsOf(dx, HAND), [2])[2]).toBe(100);
    expect(evaluate(dx, inputsOf(dx, HAND), [2])[3]).toBeCloseTo(100 / 7, 12);
    const a = evaluate(adx, inputsOf(adx, HAND), [2]);
    expect(Array.from(a.subarray(0, 3)).every(Number.isNaN)).toBe(true);
    expect(a[3]).toBeCloseTo(400 / 7, 12);
  });

  it("are first defined at bar n (DI, DX) and 2n − 1 (ADX), and keep the kernel contract", () => {
    for (const bars of PLAIN)
      for (const n of [1, 14, 40]) {
        checkContract(adx, inputsOf(adx, bars), [n]);
        // With n = 1 an inside bar has no directional movement at all: DX is 0/0 there.
        if (n > 1) checkContract(dx, inputsOf(dx, bars), [n]);
        checkContract(plus_di, inputsOf(plus_di, bars), [n]);
        checkContract(minus_di, inputsOf(minus_di, bars), [n]);
      }
  });

  it("leave DI and DX undefined on a flat series (zero range, TA-Lib writes 0); ADX there is 0", () => {
    const flat = flatBars(40);
    for (const m of [plus_di, minus_di, dx]) expect(Array.from(evaluate(m, inputsOf(m, flat), [5])).every(Number.isNaN)).toBe(true);
    const a = evaluate(adx, inputsOf(adx, flat), [5]);
    expect(Array.from(a.subarray(9))).toEqual(new Array(31).fill(0));
  });

  it("seed ADX with no strength from a motionless start, as Wilder's procedure and TA-Lib do", () => {
    // Flat for 10 bars, then moving: DX is undefined until the first move, and those bars add
    // nothing to the first ADX, which is still at bar 2n − 1.
    const base = PLAIN[0]!;
    const close = Float64Array.from(base.close, (v, i) => (i < 10 ? base.close[0]! : v));
    const high = Float64Array.from(base.high, (v, i) => (i < 10 ? base.close[0]! : v));
    const low = Float64Array.from(base.low, (v, i) => (i < 10 ? base.close[0]! : v));
    const bars = { ...base, close, high, low, open: close };
    const a = evaluate(adx, inputsOf(adx, bars), [7]);
    expect(a.findIndex((v) => !Number.isNaN(v))).toBe(13);
    expectClose(a, wilder(bars, 7).adx, { rel: 1e-9, floor: 1 }, "adx(7) after a flat start");
  });

  it("skip leading NaN bars and are poisoned by a NaN bar after the start", () => {
    const base = PLAIN[1]!;
    const lead = { ...base, high: Float64Array.from(base.high, (v, i) => (i < 3 ? NaN : v)) };
    expect(evaluate(adx, inputsOf(adx, lead), [14]).findIndex((v) => !Number.isNaN(v))).toBe(3 + 27);
    expect(evaluate(plus_di, inputsOf(plus_di, lead), [14]).findIndex((v) => !Number.isNaN(v))).toBe(3 + 14);
    const later = { ...base, low: Float64Array.from(base.low, (v, i) => (i === 100 ? NaN : v)) };
    for (const m of [adx, dx, plus_di, minus_di]) {
      const out = evaluate(m, inputsOf(m, later), [14]);
      expect(out[99], m.name).not.toBeNaN();
      expect(Array.from(out.subarray(100)).every(Number.isNaN), m.name).toBe(true);
    }
  });

  it("declare warm-ups for Wilder's sums (ADX: two averages in a row)", () => {
    const one = Math.ceil(Math.log(1e-6) / Math.log(13 / 14));
    expect(plus_di.warmup!([14], 0)).toBe(one);
    expect(adx.warmup!([14], 0)).toBeGreaterThan(one);
  });
});
