import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("bearish_engulfing", () => {
  it("is a black body engulfing the prior white body (100..101 inside 99.9..101.1)", () => {
    expect(patternAt("bearish_engulfing", [{ o: 101.1, h: 101.2, l: 99.8, c: 99.9 }])).toBe(true);
  });
  it("is not a black body inside the prior white one", () => {
    expect(patternAt("bearish_engulfing", [{ o: 100.9, h: 101.2, l: 100, c: 100.2 }])).toBe(false);
  });
  it("is not a black body that only matches both ends (neither strictly beyond)", () => {
    expect(patternAt("bearish_engulfing", [{ o: 101, h: 101.2, l: 99.8, c: 100 }])).toBe(false);
  });
});
