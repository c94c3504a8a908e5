import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const longBlack = { o: 102, h: 102.1, l: 99.9, c: 100 };
const star = { o: 99.6, h: 99.8, l: 99.3, c: 99.5 };

describe("morning_star", () => {
  it("is a long black candle, a short body gapping below it, then a white candle well into the first body", () => {
    // third closes 101.4 > 100 + 0.3 · 2 and its body 1.7 is not short
    expect(patternAt("morning_star", [longBlack, star, { o: 99.7, h: 101.5, l: 99.6, c: 101.4 }])).toBe(true);
  });
  it("is not a third candle closing only 0.5 into the first body (its body 0.8 is short, too)", () => {
    expect(patternAt("morning_star", [longBlack, star, { o: 99.7, h: 100.6, l: 99.6, c: 100.5 }])).toBe(false);
  });
  it("is not a star whose body overlaps the first body (no gap)", () => {
    const overlapping = { o: 100.2, h: 100.4, l: 99.9, c: 100.1 };
    expect(patternAt("morning_star", [longBlack, overlapping, { o: 100.3, h: 101.5, l: 100.2, c: 101.4 }])).toBe(false);
  });
});
