import { describe, expect, it } from "vitest";
import { sign } from "../../../src/functions/builtins/sign.js";
import { PLAIN, checkContract, evaluate } from "../../kit/index.js";

describe("sign", () => {
  it("is −1, 0 or 1; 0 for −0; undefined for an undefined or infinite x (a division by zero)", () => {
    const ours = Array.from(evaluate(sign, [Float64Array.from([-3, 0, -0, 2.5, 1e-300, NaN, Infinity, -Infinity])], []));
    expect(ours.slice(0, 5)).toEqual([-1, 0, 0, 1, 1]);
    expect(Object.is(ours[2], 0)).toBe(true);
    expect(ours.slice(5).every(Number.isNaN)).toBe(true);
  });

  it("keeps the kernel contract", () => {
    for (const bars of PLAIN) {
      const change = bars.close.map((c, i) => (i === 0 ? NaN : c - bars.close[i - 1]!));
      const out = evaluate(sign, [change], []);
      expect(out[0]).toBeNaN();
      expect(Array.from(out.subarray(1)).every((v) => v === 1 || v === -1 || v === 0)).toBe(true);
      checkContract(sign, [bars.close], []);
    }
  });
});
