/** Plain-text tables for people (`--format table`). */

import { MAX_DECIMALS, significantDecimals } from "../precision.js";

export { decimalsOf, priceDecimals } from "../precision.js";

/**
 * A number as people read it in a screen: rounded to six significant digits or to the
 * instrument's `priceDecimals`, whichever keeps more, trailing zeros dropped. So a close prints
 * exactly as the data has it (BTC's 101731.68, not 101732), an average of closes to the same
 * tick, and an oscillator to six digits.
 */
export function formatNumber(value: number | null, priceDecimals = 0): string {
  if (value === null || !Number.isFinite(value)) return "-";
  if (Number.isInteger(value)) return String(value);
  const decimals = Math.min(MAX_DECIMALS, Math.max(significantDecimals(value, 6), priceDecimals));
  return String(Number(value.toFixed(decimals)));
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
