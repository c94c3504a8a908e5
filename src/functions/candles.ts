/**
 * Candle settings and the shared shape of the candlestick-pattern built-ins.
 *
 * TA-Lib's pattern recognizers (the CDL functions) never compare a candle with a fixed size:
 * "a long body", "a short body", "a very short shadow", "near", "far" all mean "compared with
 * the average of that measure over the candles just before". A candle setting names the
 * measure (the real body, the high-low range, or the two shadows together), how many previous
 * candles are averaged (0: the candle itself) and a factor. With TA-Lib's defaults:
 *
 * | setting         | measure   | period | factor | meaning                                               |
 * |-----------------|-----------|--------|--------|-------------------------------------------------------|
 * | BodyLong        | real body | 10     | 1      | body longer than the average of the 10 previous bodies |
 * | BodyVeryLong    | real body | 10     | 3      | body longer than 3 × that average                      |
 * | BodyShort       | real body | 10     | 1      | body shorter than that average                         |
 * | BodyDoji        | high-low  | 10     | 0.1    | body at most 10% of the average range                  |
 * | ShadowLong      | real body | 0      | 1      | shadow longer than the candle's own body               |
 * | ShadowVeryLong  | real body | 0      | 2      | shadow longer than 2 × its own body                    |
 * | ShadowShort     | shadows   | 10     | 1      | shadow shorter than half the average shadow sum        |
 * | ShadowVeryShort | high-low  | 10     | 0.1    | shadow shorter than 10% of the average range           |
 * | Near            | high-low  | 5      | 0.2    | distance at most 20% of the average range of 5 candles |
 * | Far             | high-low  | 5      | 0.6    | distance at least 60% of that average                  |
 * | Equal           | high-low  | 5      | 0.05   | distance at most 5% of that average                    |
 *
 * The average for candle j is `factor · (Σ measure over candles j − period .. j − 1) / period`
 * (divided by 2 more for the shadows measure, which adds two shadows), and with period 0 the
 * candle's own measure times the factor. TA-Lib keeps these sums as running totals from the
 * first bar it computes; here each average is summed afresh over its window (oldest first), so
 * a pattern's value at a bar depends only on the bars in its lookback, whichever bar the
 * evaluation starts from. The two agree to the last bits; a pattern could differ only where a
 * candle's measure equals the average to within those bits.
 */
import type { FunctionModule, Kernel, Phrase } from "./module.js";
import { assertNever } from "../errors.js";

export type CandleSetting =
  | "BodyLong"
  | "BodyVeryLong"
  | "BodyShort"
  | "BodyDoji"
  | "ShadowLong"
  | "ShadowVeryLong"
  | "ShadowShort"
  | "ShadowVeryShort"
  | "Near"
  | "Far"
  | "Equal";

/** What a candle setting measures on a candle. */
export type CandleMeasure = "realBody" | "highLow" | "shadows";

export interface CandleSettingSpec {
  readonly measure: CandleMeasure;
  /** Previous candles averaged; 0 compares with the candle's own measure. */
  readonly period: number;
  readonly factor: number;
}

/** TA-Lib's default candle settings (ta_global.c, TA_RestoreCandleDefaultSettings). */
export const CANDLE_SETTINGS: Readonly<Record<CandleSetting, CandleSettingSpec>> = {
  BodyLong: { measure: "realBody", period: 10, factor: 1 },
  BodyVeryLong: { measure: "realBody", period: 10, factor: 3 },
  BodyShort: { measure: "realBody", period: 10, factor: 1 },
  BodyDoji: { measure: "highLow", period: 10, factor: 0.1 },
  ShadowLong: { measure: "realBody", period: 0, factor: 1 },
  ShadowVeryLong: { measure: "realBody", period: 0, factor: 2 },
  ShadowShort: { measure: "shadows", period: 10, factor: 1 },
  ShadowVeryShort: { measure: "highLow", period: 10, factor: 0.1 },
  Near: { measure: "highLow", period: 5, factor: 0.2 },
  Far: { measure: "highLow", period: 5, factor: 0.6 },
  Equal: { measure: "highLow", period: 5, factor: 0.05 },
};

const EMPTY: Float64Array = new Float64Array(0);

/**
 * The four price columns of a run of candles, oldest first. A pattern's kernel keeps one and
 * points it at each call's inputs (`of`), so evaluating an instrument allocates nothing.
 */
export class Candles {
  open: Float64Array = EMPTY;
  high: Float64Array = EMPTY;
  low: Float64Array = EMPTY;
  close: Float64Array = EMPTY;

  of(open: Float64Array, high: Float64Array, low: Float64Array, close: Float64Array): this {
    this.open = open;
    this.high = high;
    this.low = low;
    this.close = close;
    return this;
  }

  realBody(i: number): number {
    return Math.abs(this.close[i]! - this.open[i]!);
  }
  /** Top of the real body. */
  bodyHigh(i: number): number {
    return this.close[i]! >= this.open[i]! ? this.close[i]! : this.open[i]!;
  }
  /** Bottom of the real body. */
  bodyLow(i: number): number {
    return this.close[i]! >= this.open[i]! ? this.open[i]! : this.close[i]!;
  }
  upperShadow(i: number): number {
    return this.high[i]! - this.bodyHigh(i);
  }
  lowerShadow(i: number): number {
    return this.bodyLow(i) - this.low[i]!;
  }
  highLow(i: number): number {
    return this.high[i]! - this.low[i]!;
  }
  /** 1 for a white (up or unchanged) candle, −1 for a black one, as TA-Lib colours them. */
  color(i: number): 1 | -1 {
    return this.close[i]! >= this.open[i]! ? 1 : -1;
  }
  isWhite(i: number): boolean {
    return this.close[i]! >= this.open[i]!;
  }
  isBlack(i: number): boolean {
    return this.close[i]! < this.open[i]!;
  }
  /** Candle i's real body lies wholly above candle j's (TA-Lib's real-body gap up). */
  bodyGapUp(i: number, j: number): boolean {
    return Math.min(this.open[i]!, this.close[i]!) > Math.max(this.open[j]!, this.close[j]!);
  }
  bodyGapDown(i: number, j: number): boolean {
    return Math.max(this.open[i]!, this.close[i]!) < Math.min(this.open[j]!, this.close[j]!);
  }

  measure(m: CandleMeasure, i: number): number {
    switch (m) {
      case "realBody":
        return this.realBody(i);
      case "highLow":
        return this.highLow(i);
      case "shadows":
        return this.upperShadow(i) + this.lowerShadow(i);
      default:
        return assertNever(m, "candle measure");
    }
  }

  /**
   * The size a setting stands for at candle j: `factor ·` the mean of its measure over the
   * `period` candles before j (or j's own measure when the period is 0), halved for shadows.
   * Patterns pass the setting object itself (`c.average(S.BodyLong, i)`): a named property
   * read, so the hot path does no keyed lookup.
   */
  average(s: CandleSettingSpec, j: number): number {
    // TA-Lib's arithmetic, in its order: factor · (sum / period) [/ 2 for shadows].
    if (s.period === 0) return (s.factor * this.measure(s.measure, j)) / (s.measure === "shadows" ? 2 : 1);
    const o = this.open;
    const h = this.high;
    const l = this.low;
    const c = this.close;
    let sum = 0;
    if (s.measure === "realBody") {
      for (let k = j - s.period; k < j; k++) sum += Math.abs(c[k]! - o[k]!);
      return s.factor * (sum / s.period);
    }
    if (s.measure === "highLow") {
      for (let k = j - s.period; k < j; k++) sum += h[k]! - l[k]!;
      return s.factor * (sum / s.period);
    }
    for (let k = j - s.period; k < j; k++) sum += this.upperShadow(k) + this.lowerShadow(k);
    return (s.factor * (sum / s.period)) / 2;
  }

  /** Every price of candles [from, to] is a number. */
  defined(from: number, to: number): boolean {
    for (let k = from; k <= to; k++) {
      if (this.open[k]! !== this.open[k]! || this.high[k]! !== this.high[k]!) return false;
      if (this.low[k]! !== this.low[k]! || this.close[k]! !== this.close[k]!) return false;
    }
    return true;
  }
}

/** The longest averaging period among settings (TA-Lib's lookback arithmetic uses it). */
export function periodOf(...settings: CandleSetting[]): number {
  return Math.max(...settings.map((s) => CANDLE_SETTINGS[s].period));
}

export interface PatternSpec {
  readonly name: string;
  /** TA-Lib's lookback for the CDL function with default settings: bars before the first answer. */
  readonly lookback: number;
  /** Whether the pattern completes at candle i (candles i − lookback .. i exist and are defined). */
  readonly test: (c: Candles, i: number) => boolean;
  readonly doc: string;
  readonly example: string;
  /** "TA-Lib CDLHAMMER". */
  readonly reference: string;
  readonly phrases: readonly Phrase[];
}

/**
 * A candlestick pattern as a built-in: a bare boolean name over open, high, low and close,
 * defined from bar L − 1 with L = TA-Lib's lookback + 1. Before that, and wherever a candle it
 * reads is undefined, the pattern is false.
 */
export function candlePattern(spec: PatternSpec): FunctionModule {
  const { lookback, test } = spec;
  const reused = new Candles();
  const kernel: Kernel = (inputs, _consts, out, from, to) => {
    const candles = reused.of(inputs[0]!, inputs[1]!, inputs[2]!, inputs[3]!);
    for (let i = from; i < to; i++) {
      // The test first: it is pure and rarely passes, so the pass over every price of the
      // lookback runs only for a candle that matched (the answer is the same either way).
      out[i] = i >= lookback && test(candles, i) && candles.defined(i - lookback, i) ? 1 : 0;
    }
  };
  return {
    name: spec.name,
    params: [],
    result: "boolean",
    column: "number",
    implicit: ["open", "high", "low", "close"],
    extraLookback: () => lookback,
    lookbackDoc: String(lookback + 1),
    recursive: false,
    // Each bar's answer is computed on its own (the setting averages are summed afresh per
    // bar), so it never depends on the range asked: no 64-bar blocks for a one-bar screen.
    rangeIndependent: true,
    kernel,
    doc: spec.doc,
    example: spec.example,
    reference: spec.reference,
    phrases: spec.phrases,
  };
}
