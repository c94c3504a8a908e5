import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("doji", () => {
  it("is a body of at most 10% of the average range (0.1 ≤ 0.2)", () => {
    expect(patternAt("doji", [{ o: 100, h: 101, l: 99, c: 100.1 }])).toBe(true);
  });
  it("is open = close exactly, and not a body of 0.25 (just over the 0.2 limit)", () => {
    expect(patternAt("doji", [{ o: 100, h: 101, l: 99, c: 100 }])).toBe(true);
    expect(patternAt("doji", [{ o: 100, h: 101, l: 99, c: 100.25 }])).toBe(false);
  });
  it("compares with the 10 candles before, not with itself: a wide doji range does not raise its own limit", () => {
    expect(patternAt("doji", [{ o: 100, h: 110, l: 90, c: 100.3 }])).toBe(false);
  });
  it("is not a body of 0.3, above 10% of the average range of 2", () => {
    expect(patternAt("doji", [{ o: 100, h: 101, l: 99, c: 100.3 }])).toBe(false);
  });
  it("is false on a candle with an undefined price", () => {
    expect(patternAt("doji", [{ o: 100, h: Number.NaN, l: 99, c: 100 }])).toBe(false);
  });
});
