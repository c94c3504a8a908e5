import { describe, expect, it } from "vitest";
import { sqrt } from "../../../src/functions/builtins/sqrt.js";
import { PLAIN, checkContract, evaluate } from "../../kit/index.js";

describe("sqrt", () => {
  it("is the square root, 0 at 0, undefined for x < 0 and for undefined x", () => {
    const ours = Array.from(evaluate(sqrt, [Float64Array.from([4, 2, 0, -1, NaN])], []));
    expect(ours.slice(0, 3)).toEqual([2, Math.SQRT2, 0]);
    expect(ours.slice(3).every(Number.isNaN)).toBe(true);
  });

  it("keeps the kernel contract", () => {
    for (const bars of PLAIN) checkContract(sqrt, [bars.close], []);
  });
});
