/** Plain-text tables for people (`--format table`). */

import type { Bars } from "../types.js";

/** The most decimals a table shows: beyond them a double's digits are representation, not data. */
const MAX_DECIMALS = 12;

/**
 * A number as people read it in a screen: rounded to six significant digits or to the
 * instrument's `priceDecimals`, whichever keeps more, trailing zeros dropped. So a close prints
 * exactly as the data has it (BTC's 101731.68, not 101732), an average of closes to the same
 * tick, and an oscillator to six digits.
 */
export function formatNumber(value: number | null, priceDecimals = 0): string {
  if (value === null || !Number.isFinite(value)) return "-";
  if (Number.isInteger(value)) return String(value);
  const significant = Math.max(0, 5 - Math.floor(Math.log10(Math.abs(value))));
  const decimals = Math.min(MAX_DECIMALS, Math.max(significant, priceDecimals));
  return String(Number(value.toFixed(decimals)));
}

/** The decimals a price is written with: those of its shortest decimal form (0.00012 has 5). */
export function decimalsOf(price: number): number {
  if (!Number.isFinite(price)) return 0;
  const [mantissa, exponent] = String(Math.abs(price)).split("e");
  const fraction = mantissa!.split(".")[1]?.length ?? 0;
  return Math.min(MAX_DECIMALS, Math.max(0, fraction - Number(exponent ?? 0)));
}

/**
 * The decimals an instrument's prices are quoted in: the most that any open, high, low or close
 * of its latest `sample` bars is written with (a feed's tick shows there; 0 without bars).
 */
export function priceDecimals(bars: Bars | undefined, sample = 200): number {
  if (bars === undefined) return 0;
  let decimals = 0;
  for (const column of [bars.open, bars.high, bars.low, bars.close]) {
    for (let i = Math.max(0, column.length - sample); i < column.length; i++) decimals = Math.max(decimals, decimalsOf(column[i]!));
  }
  return decimals;
}

/** Rows of cells under a header; `numeric` columns align right. */
export function renderTable(header: readonly string[], rows: readonly string[][], numeric: readonly boolean[] = []): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
}
