/**
 * A tolerant token scan for editors: every piece of the text with its kind, comments and
 * unknown characters included (the parser's lexer skips comments; an editor colours them).
 * It reuses the parser's own lexer, so highlighting can never disagree with parsing about
 * where a token starts or ends.
 */
import { tokenize } from "../syntax/lexer.js";
import { KEYWORDS } from "../syntax/tokens.js";
import { FUNCTIONS, SERIES } from "../functions/registry.js";
import { isTimeframe } from "../types.js";

/** What a piece of text is, for colouring and for finding the completion context. */
export type PieceKind =
  | "keyword"
  | "setting"
  | "boolean"
  | "number"
  | "string"
  | "comment"
  | "timeframePrefix"
  | "timeframe"
  | "function"
  | "series"
  | "name"
  | "operator"
  | "punctuation"
  | "invalid";

/** One token of the text: `[start, end)` in UTF-16 offsets, its lexer type and its kind. */
export interface Piece {
  readonly start: number;
  readonly end: number;
  /** The lexer's token type name (`Identifier`, `LParen`, ...), or `Comment` / `Invalid`. */
  readonly type: string;
  readonly kind: PieceKind;
  readonly image: string;
}

const SETTING_WORDS: ReadonlySet<string> = new Set(["market", "timeframe", "columns", "sort", "limit", "symbols", "watchlist", "let"]);
const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);
const OPERATOR_TYPES: ReadonlySet<string> = new Set([
  "LessEqual",
  "GreaterEqual",
  "EqualEqual",
  "NotEqual",
  "Less",
  "Greater",
  "Plus",
  "Minus",
  "Star",
  "Slash",
  "Equals",
]);

function kindOf(type: string, image: string, previous: Piece | undefined): PieceKind {
  switch (type) {
    case "NumberLiteral":
      return "number";
    case "StringLiteral":
      return "string";
    case "TimeframePrefix":
      return "timeframePrefix";
    case "Identifier":
      if (FUNCTIONS.has(image)) return "function";
      if (SERIES.has(image)) return "series";
      // `timeframe = h1`: the value of the timeframe setting.
      if (isTimeframe(image) && previous?.type === "Equals") return "timeframe";
      return "name";
    default:
      if (image === "true" || image === "false") return "boolean";
      if (KEYWORD_SET.has(image)) return SETTING_WORDS.has(image) ? "setting" : "keyword";
      if (OPERATOR_TYPES.has(type)) return "operator";
      return "punctuation";
  }
}

/** Splits a gap between tokens into comments and invalid characters (whitespace is dropped). */
function scanGap(text: string, from: number, to: number, out: Piece[]): void {
  let i = from;
  while (i < to) {
    const ch = text.charCodeAt(i);
    if (ch === 32 || ch === 9 || ch === 10 || ch === 13 || (ch === 0xfeff && i === 0)) {
      i++;
      continue;
    }
    if (ch === 47 && text.charCodeAt(i + 1) === 47) {
      let end = i;
      while (end < to && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
      out.push({ start: i, end, type: "Comment", kind: "comment", image: text.slice(i, end) });
      i = end;
      continue;
    }
    let end = i + 1;
    while (end < to && !/[\s/]/.test(text[end]!)) end++;
    out.push({ start: i, end, type: "Invalid", kind: "invalid", image: text.slice(i, end) });
    i = end;
  }
}

/** Every token, comment and stray character of `text`, in order. Never throws. */
export function scan(text: string): Piece[] {
  const { tokens } = tokenize(text);
  const out: Piece[] = [];
  let at = 0;
  let previous: Piece | undefined;
  for (const token of tokens) {
    const start = token.startOffset;
    if (start > at) scanGap(text, at, start, out);
    const type = token.tokenType.name;
    const piece: Piece = { start, end: start + token.image.length, type, kind: kindOf(type, token.image, previous), image: token.image };
    out.push(piece);
    previous = piece;
    at = piece.end;
  }
  if (at < text.length) scanGap(text, at, text.length, out);
  return out;
}
