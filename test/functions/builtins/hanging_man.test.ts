import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("hanging_man", () => {
  it("is the hammer's shape with its body at the prior high (101.2 >= 101.5 − 0.4)", () => {
    expect(patternAt("hanging_man", [{ o: 101.2, h: 101.55, l: 100, c: 101.5 }])).toBe(true);
  });
  it("is not that shape below the prior high (body bottom 100.5 < 101.1)", () => {
    expect(patternAt("hanging_man", [{ o: 100.5, h: 100.85, l: 99.3, c: 100.8 }])).toBe(false);
  });
  it("is not a large body (1.2 is not short against the average of 1)", () => {
    expect(patternAt("hanging_man", [{ o: 101.2, h: 102.45, l: 99.5, c: 102.4 }])).toBe(false);
  });
});
