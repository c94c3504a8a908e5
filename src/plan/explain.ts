/**
 * Stage `explain`: the mechanical, deterministic rendering of a query from the canonical
 * printer, e.g. `Matches when rsi(14) < 30 and volume > avgv * 2, where avgv = avg(volume, 20).
 * Returns close, rsi(14), sorted by rsi(14) ascending, at most 20 results.`
 */
import { printExpression } from "../ast/print.js";
import type { CheckedQuery } from "../check/check.js";

const DIRECTION = { asc: "ascending", desc: "descending" } as const;

export function explainQuery(checked: CheckedQuery): string {
  let text = `Matches when ${printExpression(checked.condition.expression)}`;
  if (checked.lets.length > 0) {
    text += `, where ${checked.lets.map((l) => `${l.name} = ${printExpression(l.expression)}`).join(", ")}`;
  }
  if (checked.symbols !== undefined) {
    text += `, over ${checked.symbols.length} symbol${checked.symbols.length === 1 ? "" : "s"}`;
  } else if (checked.watchlist !== undefined) {
    text += `, over the watchlist '${checked.watchlist}'`;
  }
  text += ".";
  const parts: string[] = [];
  if (checked.columns.length > 0) parts.push(checked.columns.map((c) => printExpression(c.expression)).join(", "));
  if (checked.sort.length > 0) {
    const keys = checked.sort.map((k) => `${printExpression(k.expression)} ${DIRECTION[k.direction]}`).join(", then by ");
    parts.push(checked.columns.length > 0 ? `, sorted by ${keys}` : `results sorted by ${keys}`);
  }
  if (checked.limit !== undefined) {
    const many = `at most ${checked.limit} result${checked.limit === 1 ? "" : "s"}`;
    parts.push(parts.length > 0 ? `, ${many}` : many);
  }
  if (parts.length > 0) text += ` Returns ${parts.join("")}.`;
  return text;
}
