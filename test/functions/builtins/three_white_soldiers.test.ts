import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const s1 = { o: 100.8, h: 102.05, l: 100.7, c: 102 };
const s2 = { o: 101.6, h: 103.25, l: 101.5, c: 103.2 };

describe("three_white_soldiers", () => {
  it("is three rising white candles, each opening inside the previous body, closing near the high", () => {
    expect(patternAt("three_white_soldiers", [s1, s2, { o: 102.8, h: 104.65, l: 102.7, c: 104.6 }])).toBe(true);
  });
  it("is not a third candle with an upper shadow of 0.6 (not very short)", () => {
    expect(patternAt("three_white_soldiers", [s1, s2, { o: 102.8, h: 105.2, l: 102.7, c: 104.6 }])).toBe(false);
  });
  it("is not a third candle opening far above the second close (104 > 103.2 + Near)", () => {
    expect(patternAt("three_white_soldiers", [s1, s2, { o: 104, h: 105.85, l: 103.9, c: 105.8 }])).toBe(false);
  });
});
