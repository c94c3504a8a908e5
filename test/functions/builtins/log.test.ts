import { describe, expect, it } from "vitest";
import { log } from "../../../src/functions/builtins/log.js";
import { PLAIN, checkContract, evaluate } from "../../kit/index.js";

describe("log", () => {
  it("is the natural logarithm, undefined for x <= 0 and for undefined x", () => {
    const x = Float64Array.from([1, Math.E, 0.5, 0, -2, NaN, Infinity]);
    const ours = Array.from(evaluate(log, [x], []));
    expect(ours.slice(0, 3)).toEqual([0, 1, Math.log(0.5)]);
    expect(ours.slice(3, 6).every(Number.isNaN)).toBe(true);
    expect(ours[6]).toBe(Infinity);
  });

  it("keeps the kernel contract (lookback L(x): defined from bar 0 on prices)", () => {
    for (const bars of PLAIN) checkContract(log, [bars.close], []);
  });
});
