import { describe, expect, it } from "vitest";
import { patternAt } from "./candles.js";

describe("bearish_harami", () => {
  it("is a long white body then a short body inside it", () => {
    expect(patternAt("bearish_harami", [{ o: 100, h: 102.1, l: 99.9, c: 102 }, { o: 101.5, h: 101.6, l: 100.4, c: 101 }])).toBe(true);
  });
  it("is not the same inside body after a long black candle (that one is bullish)", () => {
    expect(patternAt("bearish_harami", [{ o: 102, h: 102.1, l: 99.9, c: 100 }, { o: 101.5, h: 101.6, l: 100.4, c: 101 }])).toBe(false);
  });
  it("is not a second body as long as the first's average (1.5 > 1.1)", () => {
    expect(patternAt("bearish_harami", [{ o: 100, h: 102.1, l: 99.9, c: 102 }, { o: 101.8, h: 101.9, l: 100.2, c: 100.3 }])).toBe(false);
  });
});
