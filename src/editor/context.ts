/**
 * Where the cursor is, in the language's terms: which statement, which setting, whether an
 * expression may start or continue here. The text an editor holds is usually broken (it is
 * being typed), so this reads tokens, not the parse tree. A line break is not a token in XQL:
 * a statement ends where the next token cannot continue it (`h1` then `rsi`), at a `;`, or at a
 * setting keyword, which is reserved.
 */
import type { Piece } from "./scan.js";

const SETTING_TYPES: ReadonlySet<string> = new Set(["Market", "Timeframe", "Columns", "Sort", "Limit", "Symbols", "Watchlist", "Let"]);
/** Tokens after which an expression is complete (a value was just written). */
const ENDS_VALUE: ReadonlySet<string> = new Set(["Identifier", "NumberLiteral", "StringLiteral", "RParen", "RBracket", "True", "False", "Asc", "Desc"]);
/** Tokens that start a value. `(` after a name is a call and `[` a history offset, not a start. */
const STARTS_VALUE: ReadonlySet<string> = new Set(["Identifier", "NumberLiteral", "StringLiteral", "LParen", "Not", "True", "False", "TimeframePrefix"]);

export function endsValue(piece: Piece | undefined): boolean {
  return piece !== undefined && ENDS_VALUE.has(piece.type);
}

/** Splits significant pieces (no comments) into statements, tolerating any damage. */
export function statementsOf(pieces: readonly Piece[]): Piece[][] {
  const statements: Piece[][] = [];
  let current: Piece[] = [];
  let depth = 0;
  const close = (): void => {
    if (current.length > 0) statements.push(current);
    current = [];
    depth = 0;
  };
  for (const piece of pieces) {
    if (piece.type === "Comment" || piece.type === "Invalid") continue;
    if (piece.type === "Semicolon") {
      current.push(piece);
      close();
      continue;
    }
    const previous = current[current.length - 1];
    const startsStatement =
      SETTING_TYPES.has(piece.type) ||
      (depth === 0 && endsValue(previous) && STARTS_VALUE.has(piece.type) && !(piece.type === "LParen" && previous?.type === "Identifier"));
    if (startsStatement) close();
    current.push(piece);
    if (piece.type === "LParen" || piece.type === "LBracket") depth++;
    else if ((piece.type === "RParen" || piece.type === "RBracket") && depth > 0) depth--;
  }
  close();
  return statements;
}

/** The kind of statement a list of pieces is, read from its first token. */
export type StatementKind = "market" | "timeframe" | "columns" | "sort" | "limit" | "symbols" | "watchlist" | "let" | "condition";

export function statementKind(statement: readonly Piece[]): StatementKind {
  switch (statement[0]?.type) {
    case "Market":
      return "market";
    case "Timeframe":
      return "timeframe";
    case "Columns":
      return "columns";
    case "Sort":
      return "sort";
    case "Limit":
      return "limit";
    case "Symbols":
      return "symbols";
    case "Watchlist":
      return "watchlist";
    case "Let":
      return "let";
    default:
      return "condition";
  }
}

/** A `let` statement's name and where its name is written, when it has got that far. */
export function letName(statement: readonly Piece[]): Piece | undefined {
  return statement[0]?.type === "Let" && statement[1]?.type === "Identifier" ? statement[1] : undefined;
}
