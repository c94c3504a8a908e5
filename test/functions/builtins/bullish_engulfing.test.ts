import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

const black = { o: 101, h: 101.2, l: 100.3, c: 100.5 };

describe("bullish_engulfing", () => {
  it("is a white body engulfing the prior black body (opens 100.4 < 100.5, closes 101.1 >= 101)", () => {
    expect(patternAt("bullish_engulfing", [black, { o: 100.4, h: 101.3, l: 100.3, c: 101.1 }])).toBe(true);
  });
  it("counts a body matching one end exactly (TA-Lib's 80)", () => {
    expect(patternAt("bullish_engulfing", [black, { o: 100.5, h: 101.3, l: 100.3, c: 101.1 }])).toBe(true);
  });
  it("is not a white body inside the prior one", () => {
    expect(patternAt("bullish_engulfing", [black, { o: 100.6, h: 101.3, l: 100.5, c: 100.9 }])).toBe(false);
  });
  it("is not a white body after a white one, and never bearish engulfing", () => {
    const white = { o: 100.4, h: 101.3, l: 100.3, c: 101.1 };
    expect(patternAt("bullish_engulfing", [{ o: 100.5, h: 101, l: 100.4, c: 100.9 }, white])).toBe(false);
    expect(patternAt("bearish_engulfing", [black, white])).toBe(false);
  });
});
