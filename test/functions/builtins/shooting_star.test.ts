import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("shooting_star", () => {
  it("is a small body gapping above the prior body with a long upper shadow", () => {
    // prior body 100..101; this body 101.2..101.5; upper 1.1; lower 0.05
    expect(patternAt("shooting_star", [{ o: 101.2, h: 102.6, l: 101.15, c: 101.5 }])).toBe(true);
  });
  it("is not a candle with a lower shadow of 0.5", () => {
    expect(patternAt("shooting_star", [{ o: 101.2, h: 102.6, l: 100.7, c: 101.5 }])).toBe(false);
  });
  it("is not a body that touches the prior close (101 is not above 101: no gap)", () => {
    expect(patternAt("shooting_star", [{ o: 101, h: 102.4, l: 100.95, c: 101.3 }])).toBe(false);
  });
});
