import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const longBlack = { o: 102, h: 102.1, l: 99.9, c: 100 };

describe("bullish_harami", () => {
  it("is a long black body (2 > 1) then a short body (0.5 <= 1.1) inside it", () => {
    expect(patternAt("bullish_harami", [longBlack, { o: 100.5, h: 101.6, l: 100.4, c: 101 }])).toBe(true);
  });
  it("is not a second body reaching above the first (102.3 > 102)", () => {
    expect(patternAt("bullish_harami", [longBlack, { o: 101.5, h: 102.4, l: 101.4, c: 102.3 }])).toBe(false);
  });
  it("is not after an ordinary body (1 is not longer than the average of 1)", () => {
    expect(patternAt("bullish_harami", [{ o: 101, h: 101.5, l: 99.5, c: 100 }, { o: 100.3, h: 100.8, l: 100.2, c: 100.6 }])).toBe(false);
  });
});
