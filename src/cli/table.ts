/** Plain-text tables for people (`--format table`). */

/** A number as people read it in a screen: up to six significant digits, no exponent noise. */
export function formatNumber(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "-";
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1e6) return value.toFixed(0);
  return String(Number(value.toPrecision(6)));
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
