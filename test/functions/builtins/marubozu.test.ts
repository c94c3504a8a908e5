import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("marubozu", () => {
  it("is a long body (2 > 1) with shadows under 0.2, white or black", () => {
    expect(patternAt("marubozu", [{ o: 100, h: 102.05, l: 99.95, c: 102 }])).toBe(true);
    expect(patternAt("marubozu", [{ o: 102, h: 102.05, l: 99.95, c: 100 }])).toBe(true);
  });
  it("is not a long body with an upper shadow of 0.5", () => {
    expect(patternAt("marubozu", [{ o: 100, h: 102.5, l: 99.95, c: 102 }])).toBe(false);
  });
  it("is not an ordinary body without shadows (1 is not longer than the average of 1)", () => {
    expect(patternAt("marubozu", [{ o: 100, h: 101, l: 100, c: 101 }])).toBe(false);
  });
});
