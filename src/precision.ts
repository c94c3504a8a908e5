/**
 * How many decimals an instrument's prices are quoted in, read from its bars: a feed's tick
 * shows in the shortest decimal form of its prices (BTCUSDT's 101731.68 has 2, a token at
 * 0.00001234 has 8). The command line's tables and the playground's chart show numbers to at
 * least these decimals, so a price prints as the data has it. Pure and browser-safe.
 */
import { assertNever } from "./errors.js";
import type { ColumnKind } from "./functions/module.js";
import type { Bars } from "./types.js";

/** The most decimals shown: beyond them a double's digits are representation, not data. */
export const MAX_DECIMALS = 12;

/** The decimals a price is written with: those of its shortest decimal form (0.00012 has 5). */
export function decimalsOf(price: number): number {
  if (!Number.isFinite(price)) return 0;
  const [mantissa, exponent] = String(Math.abs(price)).split("e");
  const fraction = mantissa!.split(".")[1]?.length ?? 0;
  return Math.min(MAX_DECIMALS, Math.max(0, fraction - Number(exponent ?? 0)));
}

/**
 * The decimals an instrument's prices are quoted in: the most that any open, high, low or close
 * of its latest `sample` bars is written with (0 without bars).
 */
export function priceDecimals(bars: Bars | undefined, sample = 200): number {
  if (bars === undefined) return 0;
  let decimals = 0;
  for (const column of [bars.open, bars.high, bars.low, bars.close]) {
    for (let i = Math.max(0, column.length - sample); i < column.length; i++) decimals = Math.max(decimals, decimalsOf(column[i]!));
  }
  return decimals;
}

/** The decimals that show `value` to `digits` significant digits (0 for a value of 10^digits or more). */
export function significantDecimals(value: number, digits: number): number {
  if (value === 0 || !Number.isFinite(value)) return 0;
  return Math.min(MAX_DECIMALS, Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(value)))));
}

/** Decimals shown for an oscillator: its scale is 0–100-like, so hundredths are all a reader uses. */
const OSCILLATOR_DECIMALS = 2;

/**
 * A column's value as a table shows it (docs/service.md, "How the table shows numbers"), by the
 * column's kind: a `price` to the instrument's `priceDecimals` (six significant digits when they
 * are not known), an `oscillator` to two decimals, a `volume` to six significant digits grouped
 * in thousands (`1,234,568`), any other `number` to six significant digits, trailing zeros
 * dropped. Undefined values show as `-`. The CLI's table and the playground's both use it.
 */
export function formatColumnValue(value: number | null | undefined, kind: ColumnKind, priceDecimals?: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  switch (kind) {
    case "price":
      return priceDecimals === undefined ? significant(value) : value.toFixed(Math.min(MAX_DECIMALS, priceDecimals));
    case "oscillator":
      return value.toFixed(OSCILLATOR_DECIMALS);
    case "volume":
      return grouped(significant(value));
    case "number":
      return significant(value);
    default:
      return assertNever(kind, "column kind");
  }
}

/** Six significant digits (all of an integer's), trailing zeros dropped, never an exponent. */
function significant(value: number): string {
  if (Number.isInteger(value)) return value.toFixed(0);
  const fixed = value.toFixed(significantDecimals(value, 6));
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/** `1234567.5` → `1,234,567.5`: thousands separated in the integer part. */
function grouped(text: string): string {
  const [whole, fraction] = text.split(".");
  const withCommas = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? withCommas : `${withCommas}.${fraction}`;
}
