import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const longWhite = { o: 100, h: 102.1, l: 99.9, c: 102 };

describe("dark_cloud_cover", () => {
  it("is a long white candle, then a black one opening above its high and closing below its midpoint", () => {
    expect(patternAt("dark_cloud_cover", [longWhite, { o: 102.5, h: 102.6, l: 100.4, c: 100.5 }])).toBe(true);
  });
  it("is not a black candle opening at the prior high rather than above it", () => {
    expect(patternAt("dark_cloud_cover", [longWhite, { o: 102.1, h: 102.2, l: 100.4, c: 100.5 }])).toBe(false);
  });
  it("is not a black candle closing below the first open (that engulfs instead)", () => {
    expect(patternAt("dark_cloud_cover", [longWhite, { o: 102.5, h: 102.6, l: 99.4, c: 99.5 }])).toBe(false);
  });
});
