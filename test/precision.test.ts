/** How a table shows a column's value, by what the column holds. */
import { describe, expect, it } from "vitest";
import { formatColumnValue } from "../src/precision.js";

describe("formatColumnValue", () => {
  it("shows a price to the instrument's quoted decimals (the issue's XVGUSDT and ZECUSDT)", () => {
    expect(formatColumnValue(0.0054335, "price", 7)).toBe("0.0054335");
    expect(formatColumnValue(0.00543351234, "price", 7)).toBe("0.0054335");
    expect(formatColumnValue(587.12, "price", 2)).toBe("587.12");
    expect(formatColumnValue(587.1, "price", 2)).toBe("587.10");
    expect(formatColumnValue(1.041333333, "price", 5)).toBe("1.04133");
    // Decimals not known (no bars at hand): six significant digits.
    expect(formatColumnValue(1.041333333, "price")).toBe("1.04133");
  });

  it("shows an oscillator to two decimals, whatever the instrument's prices", () => {
    expect(formatColumnValue(28.9355854, "oscillator", 7)).toBe("28.94");
    expect(formatColumnValue(28.7289, "oscillator", 2)).toBe("28.73");
    expect(formatColumnValue(100, "oscillator", 2)).toBe("100.00");
    expect(formatColumnValue(-45.5, "oscillator")).toBe("-45.50");
  });

  it("groups a volume in thousands, to six significant digits", () => {
    expect(formatColumnValue(16989, "volume", 2)).toBe("16,989");
    expect(formatColumnValue(1234567.891, "volume", 2)).toBe("1,234,568");
    expect(formatColumnValue(-2500000, "volume")).toBe("-2,500,000");
    expect(formatColumnValue(3.075, "volume")).toBe("3.075");
    expect(formatColumnValue(999.5, "volume")).toBe("999.5");
  });

  it("shows any other number to six significant digits, trailing zeros dropped", () => {
    expect(formatColumnValue(0.123456789, "number", 2)).toBe("0.123457");
    expect(formatColumnValue(12345678.9, "number")).toBe("12345679");
    expect(formatColumnValue(0.0000856276, "number")).toBe("0.0000856276");
    expect(formatColumnValue(1.5, "number")).toBe("1.5");
    expect(formatColumnValue(1, "number")).toBe("1");
  });

  it("shows a missing value as -", () => {
    for (const value of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) expect(formatColumnValue(value, "price", 2)).toBe("-");
  });
});
