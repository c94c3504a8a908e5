/** `avg`: the same mean as `sma`, with the source required. */
import { describe, expect, it } from "vitest";
import { validate } from "../../../src/api.js";
import { FUNCTIONS } from "../../../src/functions/registry.js";
import { BARS, MODULE, evaluate } from "../../kit/index.js";

describe("avg", () => {
  it("is sma's kernel: identical values on every fixture", () => {
    for (const bars of BARS) {
      for (const n of [1, 5, 20]) expect(Array.from(evaluate(MODULE.avg, [bars.close], [n]))).toEqual(Array.from(evaluate(MODULE.sma, [bars.close], [n])));
    }
    expect(FUNCTIONS.get("avg")!.kernel).toBe(FUNCTIONS.get("sma")!.kernel);
  });

  it("worked example: [2, 4, 9, 1] over 2 bars", () => {
    expect(Array.from(evaluate(MODULE.avg, [Float64Array.from([2, 4, 9, 1])], [2]))).toEqual([NaN, 3, 6.5, 5]);
  });

  it("requires its source: avg(20) is an arity error", () => {
    const result = validate('market = "FOREX"\ntimeframe = h1\navg(20) > 0');
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.error.message).toBe("Function 'avg' takes 2 arguments (avg(src, n)), got 1");
  });
});
