/**
 * Formatting through the canonical printer (`src/ast/print.ts`), keeping the comments where
 * they were written: the printer works on the AST, which has none, so each comment is put
 * back beside the tokens it followed. A comment before a statement goes on its own line before
 * it; one after a statement on its line stays there; one written inside an expression stays
 * after the same token, and the expression goes on on the next line, indented (a line comment
 * runs to the end of its line, so whatever followed it must start a new one).
 */
import { parse } from "../ast/lower.js";
import { printQuery, printStatement } from "../ast/print.js";
import type { Span, Statement } from "../ast/nodes.js";
import { XqlError } from "../errors.js";
import { scan, type Piece } from "./scan.js";

/** How the rest of a statement is indented after a comment inside it. */
const CONTINUATION = "  ";

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
  const pieces = scan(text);
  const comments = pieces.filter((p) => p.type === "Comment");
  const lines: string[] = [];
  const printed = statements.map(printStatement);
  let c = 0;
  const lineEnd = (offset: number): number => {
    const m = /[\r\n]/.exec(text.slice(offset));
    return m === null ? text.length : offset + m.index;
  };
  statements.forEach((s, i) => {
    const own = printed[i]!;
    const inside: Piece[] = [];
    while (c < comments.length && comments[c]!.start < s.span.end) {
      const comment = comments[c]!;
      if (comment.start < s.span.start) lines.push(comment.image);
      // A column's text is its result key and keeps its comments as written.
      else if (!(s.kind === "columns" && own.includes(comment.image))) inside.push(comment);
      c++;
    }
    const next = printed[i + 1];
    // A line break is not a token: `let a = close` before `(x) and y` needs its `;` (as printQuery does).
    const semicolon = s.kind === "let" && next !== undefined && (next.startsWith("(") || next.startsWith("-")) ? ";" : "";
    let line = (inside.length === 0 ? own : withCommentsInside(text, pieces, s.span, own, inside)) + semicolon;
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

const isCode = (p: Piece): boolean => p.type !== "Comment" && p.type !== "Invalid";
/** Tokens the printer may leave out or add without changing the query. */
const isGrouping = (p: Piece): boolean => p.type === "LParen" || p.type === "RParen" || p.type === "Semicolon";

/**
 * `printed` (one statement's canonical text) with the comments written inside the statement
 * put back after the token each followed. The statement's tokens and the printed ones are
 * walked side by side: equal tokens match, parentheses only one side has are skipped (the
 * printer writes the fewest), and any other difference is the same token written otherwise
 * (`2.50` printed `2.5`).
 */
function withCommentsInside(text: string, pieces: readonly Piece[], span: Span, printed: string, inside: readonly Piece[]): string {
  const written = pieces.filter((p) => isCode(p) && p.start >= span.start && p.end <= span.end);
  const canonical = scan(printed).filter(isCode);
  const matched: number[] = new Array<number>(written.length).fill(-1);
  for (let i = 0, j = 0; i < written.length && j < canonical.length; ) {
    if (written[i]!.image === canonical[j]!.image) matched[i++] = j++;
    else if (isGrouping(written[i]!)) i++;
    else if (isGrouping(canonical[j]!)) j++;
    else matched[i++] = j++;
  }
  // Each comment after the printed token that matches the last written token before it.
  const after = new Map<number, string[]>();
  for (const comment of inside) {
    let i = written.length - 1;
    while (i >= 0 && written[i]!.end > comment.start) i--;
    while (i >= 0 && matched[i] === -1) i--;
    const j = i < 0 ? -1 : matched[i]!;
    const sameLine = i >= 0 && !/[\r\n]/.test(text.slice(written[i]!.end, comment.start));
    const group = after.get(j) ?? [];
    group.push(sameLine && group.length === 0 ? ` ${comment.image}` : `\n${CONTINUATION}${comment.image}`);
    after.set(j, group);
  }
  let out = "";
  let at = 0;
  for (const j of [...after.keys()].sort((a, b) => a - b)) {
    const end = j < 0 ? 0 : canonical[j]!.end;
    out += printed.slice(at, end) + after.get(j)!.join("");
    // The rest of the statement goes on on the next line, without the space the printer put.
    out += `\n${CONTINUATION}`;
    at = end;
    while (printed[at] === " ") at++;
  }
  return (out + printed.slice(at)).replace(/^\n/, "");
}
