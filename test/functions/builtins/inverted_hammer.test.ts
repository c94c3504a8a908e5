import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("inverted_hammer", () => {
  it("is a small body gapping below the prior body, long upper shadow, almost no lower one", () => {
    // prior body 100..101; this body 99.5..99.8; upper shadow 1.1 > 0.3; lower 0.05 < 0.2
    expect(patternAt("inverted_hammer", [{ o: 99.5, h: 100.9, l: 99.45, c: 99.8 }])).toBe(true);
  });
  it("is not that shape without the gap (body 100.2..100.5 overlaps the prior body)", () => {
    expect(patternAt("inverted_hammer", [{ o: 100.2, h: 101.6, l: 100.15, c: 100.5 }])).toBe(false);
  });
  it("is not a candle with a lower shadow of 0.5", () => {
    expect(patternAt("inverted_hammer", [{ o: 99.5, h: 100.9, l: 99.0, c: 99.8 }])).toBe(false);
  });
});
