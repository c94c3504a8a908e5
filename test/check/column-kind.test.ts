/** What a column holds, derived from its expression (docs/service.md, "How the table shows numbers"). */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { FUNCTIONS } from "../../src/functions/registry.js";

function kinds(columns: string): Readonly<Record<string, string>> {
  return compile(`market = "CRYPTO"\ntimeframe = h1\ncolumns = [${columns}]\nlet avgv = avg(volume, 20)\ntrue`).columnKinds;
}

describe("column kinds", () => {
  it("gives prices, moving averages, bands and levels the price kind", () => {
    expect(kinds("close, open, hl2, ohlc4, sma(20), ema(close, 9), bb_upper(20, 2), kijun(26), atr(14), highest(20), d::sma(200), close[1]")).toEqual({
      close: "price",
      open: "price",
      hl2: "price",
      ohlc4: "price",
      "sma(20)": "price",
      "ema(close, 9)": "price",
      "bb_upper(20, 2)": "price",
      "kijun(26)": "price",
      "atr(14)": "price",
      "highest(20)": "price",
      "d::sma(200)": "price",
      "close[1]": "price",
    });
  });

  it("gives the bounded oscillators two-decimal kind, whatever timeframe or history", () => {
    const names = ["rsi(14)", "stoch_k(14, 3)", "willr(14)", "mfi(14)", "adx(14)", "cci(20)", "h4::rsi(14)", "rsi(14)[2]"];
    expect(Object.values(kinds(names.join(", ")))).toEqual(names.map(() => "oscillator"));
  });

  it("follows the source of an average: of volume a volume, of an oscillator an oscillator", () => {
    expect(kinds("volume, avgv, sma(volume, 5), obv, highest(rsi(14), 5), avgv * 2")).toEqual({
      volume: "volume",
      avgv: "volume",
      "sma(volume, 5)": "volume",
      obv: "volume",
      "highest(rsi(14), 5)": "oscillator",
      "avgv * 2": "volume",
    });
  });

  it("derives arithmetic: a price range or offset stays a price, a ratio of two series is a number", () => {
    expect(kinds("high - low, close + 0.001, close * 1.01, close / 2, -change(close, 1), close / sma(200), close * volume, close - rsi(14), 2 * 3")).toEqual({
      "high - low": "price",
      "close + 0.001": "price",
      "close * 1.01": "price",
      "close / 2": "price",
      "-change(close, 1)": "price",
      "close / sma(200)": "number",
      "close * volume": "number",
      "close - rsi(14)": "number",
      "2 * 3": "number",
    });
  });

  it("shows percentages, ratios, counts and conditions as numbers", () => {
    expect(Object.values(kinds("roc(10), bb_percent(20, 2), zscore(20), count(close > open, 10), close > open, doji"))).toEqual(Array(6).fill("number"));
  });

  it("is declared by every built-in", () => {
    for (const fn of FUNCTIONS.values()) expect(["price", "oscillator", "volume", "number", "input"], fn.name).toContain(fn.column);
  });
});
