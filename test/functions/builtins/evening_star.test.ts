import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const longWhite = { o: 100, h: 102.1, l: 99.9, c: 102 };

describe("evening_star", () => {
  it("is a long white candle, a short body gapping above it, then a black candle well into the first body", () => {
    expect(patternAt("evening_star", [longWhite, { o: 102.4, h: 102.7, l: 102.2, c: 102.5 }, { o: 102.3, h: 102.4, l: 100.5, c: 100.6 }])).toBe(true);
  });
  it("is not a star overlapping the first body", () => {
    expect(patternAt("evening_star", [longWhite, { o: 101.8, h: 102.2, l: 101.7, c: 101.9 }, { o: 101.8, h: 101.9, l: 100.5, c: 100.6 }])).toBe(false);
  });
  it("is not a white third candle", () => {
    expect(patternAt("evening_star", [longWhite, { o: 102.4, h: 102.7, l: 102.2, c: 102.5 }, { o: 100.6, h: 102.4, l: 100.5, c: 102.3 }])).toBe(false);
  });
});
