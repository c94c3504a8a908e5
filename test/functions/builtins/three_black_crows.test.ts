import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

// After the last ordinary candle (white, high 101.5):
const c1 = { o: 101.3, h: 101.4, l: 99.95, c: 100 };
const c2 = { o: 100.5, h: 100.6, l: 98.75, c: 98.8 };

describe("three_black_crows", () => {
  it("is three falling black candles after a white one, each opening inside the previous body", () => {
    expect(patternAt("three_black_crows", [c1, c2, { o: 99.5, h: 99.6, l: 97.25, c: 97.3 }])).toBe(true);
  });
  it("is not a third candle gapping below the second close (opens 98.5 < 98.8)", () => {
    expect(patternAt("three_black_crows", [c1, c2, { o: 98.5, h: 98.6, l: 97.25, c: 97.3 }])).toBe(false);
  });
  it("is not a third candle with a long lower shadow", () => {
    expect(patternAt("three_black_crows", [c1, c2, { o: 99.5, h: 99.6, l: 96.5, c: 97.3 }])).toBe(false);
  });
});
