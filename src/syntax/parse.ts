/**
 * Stage `parse`: query text → CST. Lexes, guards nesting depth (so 20,000 open parentheses
 * give an error instead of a stack overflow), runs the one parser instance, and turns the
 * first lexer or parser error into an `XqlError` with an exact position.
 */
import type { IToken } from "chevrotain";
import { EOF } from "./chevrotain.js";
import { syntaxError, XqlError, type Stage } from "../errors.js";
import type { QueryCstNode } from "./cst.js";
import { xqlParser } from "./parser.js";
import * as T from "./tokens.js";
import { unknownTimeframeMessage } from "../suggest.js";
import { TIMEFRAMES } from "../types.js";

/** Most tokens a query may have (a realistic screen has 20-400): the cost guard's first limit. */
export const MAX_QUERY_TOKENS = 4000;

/** Deepest nesting of parentheses, brackets and prefix operators a query may use. */
export const MAX_NESTING = 64;

export interface ParsedText {
  readonly text: string;
  readonly tokens: readonly IToken[];
  readonly cst: QueryCstNode;
}

function lexerMessage(text: string, offset: number): { offset: number; message: string } {
  const code = text.codePointAt(offset) ?? 0;
  const char = String.fromCodePoint(code);
  if (char === '"') {
    for (let i = offset + 1; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") {
        const next = text[i + 1];
        if (next === '"' || next === "\\") {
          i++;
          continue;
        }
        return { offset: i, message: 'Invalid escape in string: only \\" and \\\\ are allowed' };
      }
      if (c === "\n" || c === "\r") break;
    }
    return { offset, message: "Unterminated string" };
  }
  if (char === ":" ) return { offset, message: "Unexpected character ':'; a timeframe prefix is written like d::close" };
  if (char === "!") return { offset, message: "Unexpected character '!'; use 'not' for negation or '!=' for inequality" };
  if (char === "&" || char === "|") return { offset, message: `Unexpected character '${char}'; use 'and' / 'or'` };
  if (char === "'") return { offset, message: "Unexpected character \"'\"; strings use double quotes" };
  // Control and invisible characters (a no-break space or a byte-order mark pasted in from a
  // web page or an editor) are named by code point, or the message would show nothing.
  const invisible =
    code < 32 || (code >= 0x7f && code <= 0xa0) || code === 0xad || (code >= 0x2000 && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202f) || code === 0x205f || code === 0x2060 || code === 0x3000 || code === 0xfeff;
  const shown = invisible ? `U+${code.toString(16).toUpperCase().padStart(4, "0")}` : char;
  return { offset, message: `Unexpected character '${shown}'` };
}

/** Rejects nesting deeper than {@link MAX_NESTING} before the recursive parser sees it. */
function checkNesting(text: string, tokens: readonly IToken[]): void {
  let depth = 0;
  let prefixRun = 0;
  // `x[1][1]...` nests one history node per `[`: count the run and the depth it lives at.
  let postfixRun = 0;
  let postfixDepth = -1;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const type = token.tokenType;
    const depthBefore = depth;
    if (type === T.LParen || type === T.LBracket) depth++;
    else if (type === T.RParen || type === T.RBracket) depth = Math.max(0, depth - 1);
    prefixRun = type === T.Minus || type === T.Not || type === T.TimeframePrefix ? prefixRun + 1 : 0;
    if (type === T.LBracket && tokens[i - 1]?.tokenType === T.RBracket) {
      if (postfixRun === 0) postfixDepth = depthBefore;
      postfixRun++;
    } else if (type !== T.LBracket && type !== T.RBracket && depthBefore <= postfixDepth) {
      postfixRun = 0;
      postfixDepth = -1;
    }
    if (depth + prefixRun + postfixRun > MAX_NESTING) {
      throw syntaxError(
        text,
        token.startOffset,
        `Expression nested too deeply: at most ${MAX_NESTING} levels of parentheses, brackets and prefix operators`,
        "parse",
      );
    }
  }
}

/**
 * The first name at or before `offset` that is a keyword typed in another case (`AND`,
 * `Market`). Such a name lexes as an identifier, so the error it causes surfaces later (at the
 * `=` of `MARKET = "FOREX"`, or as a second condition after `NOT`); the hint points back at it.
 */
export function miscasedKeyword(tokens: readonly IToken[], offset: number): IToken | undefined {
  for (const token of tokens) {
    if (token.startOffset > offset) break;
    const lower = token.image.toLowerCase();
    if (token.tokenType === T.Identifier && token.image !== lower && (T.KEYWORDS as readonly string[]).includes(lower)) {
      return token;
    }
  }
  return undefined;
}

/** `Unexpected 'AND'; keywords are lower case: did you mean 'and'?` at the name. */
export function miscasedKeywordError(text: string, token: IToken, stage: Stage): XqlError {
  const lower = token.image.toLowerCase();
  return syntaxError(text, token.startOffset, `Unexpected '${token.image}'; keywords are lower case: did you mean '${lower}'?`, stage);
}

/**
 * A timeframe written with its count first, at or before `offset`: `timeframe = 1h` lexes as
 * the number `1` and the name `h`, and `1d::close` as `1` and the prefix `d::`, so the parser
 * would complain about a number. The message names the timeframe meant, at the number.
 */
function countedTimeframeError(text: string, tokens: readonly IToken[], offset: number, prefixOnly = false): XqlError | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.startOffset > offset) break;
    if (token.tokenType !== T.NumberLiteral || !/^\d+$/.test(token.image)) continue;
    const next = tokens[i + 1];
    const glued = next !== undefined && next.startOffset === token.startOffset + token.image.length;
    if (glued && next.tokenType === T.TimeframePrefix) {
      const written = token.image + next.image.slice(0, -2);
      return syntaxError(text, token.startOffset, unknownTimeframeMessage(written, TIMEFRAMES, true), "parse");
    }
    if (!prefixOnly && tokens[i - 1]?.tokenType === T.Equals && tokens[i - 2]?.tokenType === T.Timeframe) {
      const written = glued && next.tokenType === T.Identifier ? token.image + next.image : token.image;
      return syntaxError(text, token.startOffset, unknownTimeframeMessage(written, TIMEFRAMES), "parse");
    }
  }
  return undefined;
}

/** Lexes and parses `text`; throws `XqlError` at the first problem. */
export function parseText(text: string): ParsedText {
  const lexed = T.xqlLexer().tokenize(text);
  const lexError = lexed.errors[0];
  if (lexError) {
    const { offset, message } = lexerMessage(text, lexError.offset);
    throw syntaxError(text, offset, message, "lex");
  }
  // The offset-only lexer records start offsets; the parser's node locations need the ends too.
  for (const token of lexed.tokens) token.endOffset = token.startOffset + token.image.length - 1;
  checkNesting(text, lexed.tokens);
  // The cost guard's first limit (after the nesting check, whose error comes earlier in the text): parsing costs some µs per token, lexing far less, so an
  // over-long query is refused here, for the price of lexing it.
  if (lexed.tokens.length > MAX_QUERY_TOKENS) {
    throw syntaxError(
      text,
      lexed.tokens[MAX_QUERY_TOKENS]!.startOffset,
      `Query too long: at most ${MAX_QUERY_TOKENS} tokens (names, numbers, operators), this one has ${lexed.tokens.length}`,
      "lex",
    );
  }
  const parser = xqlParser();
  parser.input = lexed.tokens;
  let cst: QueryCstNode;
  try {
    cst = parser.query() as QueryCstNode;
  } catch (error) {
    if (error instanceof RangeError) {
      throw syntaxError(text, 0, "Query too deeply nested to parse", "parse");
    }
    throw error;
  }
  const parseError = parser.errors[0];
  if (parseError) {
    const token = parseError.token;
    const offset = token.tokenType === EOF || Number.isNaN(token.startOffset) ? text.length : token.startOffset;
    const counted = countedTimeframeError(text, lexed.tokens, offset);
    if (counted) throw counted;
    const miscased = miscasedKeyword(lexed.tokens, offset);
    if (miscased) throw miscasedKeywordError(text, miscased, "parse");
    throw syntaxError(text, offset, parseError.message, "parse");
  }
  // `1d::close` parses (as `1` then a second expression) yet is never meant that way.
  const counted = countedTimeframeError(text, lexed.tokens, text.length, true);
  if (counted) throw counted;
  return { text, tokens: lexed.tokens, cst };
}

export { XqlError };
