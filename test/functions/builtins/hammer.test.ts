import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("hammer", () => {
  it("is a small body at the prior low with a long lower shadow and almost no upper one", () => {
    // body 0.3 < 1; lower shadow 1.1 > body; upper 0.05 < 0.2; body bottom 99.6 <= prior low 99.5 + 0.4
    expect(patternAt("hammer", [{ o: 99.6, h: 99.95, l: 98.5, c: 99.9 }])).toBe(true);
  });
  it("is not the same shape away from the prior low (body bottom 100.6 > 99.9)", () => {
    expect(patternAt("hammer", [{ o: 100.6, h: 100.95, l: 99.5, c: 100.9 }])).toBe(false);
  });
  it("is not a candle with an upper shadow of 0.5 (not very short)", () => {
    expect(patternAt("hammer", [{ o: 99.6, h: 100.4, l: 98.5, c: 99.9 }])).toBe(false);
  });
  it("is not a candle whose lower shadow is shorter than its body", () => {
    expect(patternAt("hammer", [{ o: 99.3, h: 99.95, l: 99.0, c: 99.9 }])).toBe(false);
  });
});
