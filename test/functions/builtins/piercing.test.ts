import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const longBlack = { o: 102, h: 102.1, l: 99.9, c: 100 };

describe("piercing", () => {
  it("is a long black candle, then a long white one opening below its low and closing above its midpoint", () => {
    // opens 99.5 < 99.9; closes 101.5: above 100 + 2 · 0.5 and below the first open 102
    expect(patternAt("piercing", [longBlack, { o: 99.5, h: 101.6, l: 99.4, c: 101.5 }])).toBe(true);
  });
  it("is not a white candle closing below the midpoint (100.8 < 101)", () => {
    expect(patternAt("piercing", [longBlack, { o: 99.5, h: 100.9, l: 99.4, c: 100.8 }])).toBe(false);
  });
  it("is not a white candle opening inside the prior range (99.95 >= 99.9)", () => {
    expect(patternAt("piercing", [longBlack, { o: 99.95, h: 101.6, l: 99.9, c: 101.5 }])).toBe(false);
  });
});
