/**
 * Formatting through the canonical printer (`src/ast/print.ts`), keeping the comments: the
 * printer works on the AST, which has none, so each comment is put back beside the statement
 * it was written with: after it on the same line when it followed the statement there,
 * otherwise on its own line before the next statement. A comment written inside an
 * expression moves to the line above that statement (its place inside has no canonical form).
 */
import { parse } from "../ast/lower.js";
import { printQuery, printStatement } from "../ast/print.js";
import type { Statement } from "../ast/nodes.js";
import { XqlError } from "../errors.js";
import { scan } from "./scan.js";

/**
 * The canonical text of `text` with its comments, or `undefined` when the text does not parse
 * (a broken query is left as the user wrote it). Formatting twice changes nothing more.
 */
export function format(text: string): string | undefined {
  let statements: readonly Statement[];
  try {
    statements = parse(text).statements;
  } catch (error) {
    if (error instanceof XqlError || error instanceof RangeError) return undefined;
    throw error;
  }
  const comments = scan(text).filter((p) => p.type === "Comment");
  const lines: string[] = [];
  const printed = statements.map(printStatement);
  let c = 0;
  const lineEnd = (offset: number): number => {
    const m = /[\r\n]/.exec(text.slice(offset));
    return m === null ? text.length : offset + m.index;
  };
  statements.forEach((s, i) => {
    const own = printed[i]!;
    // Comments before this statement, or inside it (except those a column's text keeps).
    while (c < comments.length && comments[c]!.start < s.span.end) {
      const comment = comments[c]!;
      if (!(s.kind === "columns" && comment.start > s.span.start && own.includes(comment.image))) lines.push(comment.image);
      c++;
    }
    const next = printed[i + 1];
    // A line break is not a token: `let a = close` before `(x) and y` needs its `;` (as printQuery does).
    const semicolon = s.kind === "let" && next !== undefined && (next.startsWith("(") || next.startsWith("-")) ? ";" : "";
    let line = own + semicolon;
    // A comment on the same line, after the statement, stays there.
    const trailing = comments[c];
    const nextStart = statements[i + 1]?.span.start ?? text.length;
    if (trailing !== undefined && trailing.start < nextStart && trailing.start < lineEnd(s.span.end)) {
      line += ` ${trailing.image}`;
      c++;
    }
    lines.push(line);
  });
  for (; c < comments.length; c++) lines.push(comments[c]!.image);
  const result = `${lines.join("\n")}\n`;
  // The printer's promise, checked: the formatted text is the same query.
  try {
    if (printQuery(parse(result)) !== printQuery(parse(text))) return undefined;
  } catch {
    return undefined;
  }
  return result;
}
