/**
 * Stage `parse`: query text → CST. Lexes, guards nesting depth (so 20,000 open parentheses
 * give an error instead of a stack overflow), runs the one parser instance, and turns the
 * first lexer or parser error into an `XqlError` with an exact position.
 */
import type { IToken } from "chevrotain";
import { EOF } from "./chevrotain.js";
import { fail, failWith, XqlError, type Failure } from "../errors.js";
import type { QueryCstNode } from "./cst.js";
import { tokenize } from "./lexer.js";
import { parseFailure, xqlParser } from "./parser.js";
import * as T from "./tokens.js";
import { unknownTimeframe } from "../suggest.js";
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

type LexFailureCode = "unterminated-string" | "invalid-escape" | "stray-colon" | "stray-bang" | "stray-logical" | "single-quote" | "unexpected-character";

/** What the character at `offset` that no token matches means, and where to point. */
function lexerFailure(text: string, offset: number): { offset: number; failure: Failure<LexFailureCode> } {
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
        return { offset: i, failure: { code: "invalid-escape", params: {} } };
      }
      if (c === "\n" || c === "\r") break;
    }
    return { offset, failure: { code: "unterminated-string", params: {} } };
  }
  if (char === ":") return { offset, failure: { code: "stray-colon", params: {} } };
  if (char === "!") return { offset, failure: { code: "stray-bang", params: {} } };
  if (char === "&" || char === "|") return { offset, failure: { code: "stray-logical", params: { character: char } } };
  if (char === "'") return { offset, failure: { code: "single-quote", params: {} } };
  // Control and invisible characters (a no-break space or a byte-order mark pasted in from a
  // web page or an editor) are named by code point, or the message would show nothing.
  const invisible =
    code < 32 || (code >= 0x7f && code <= 0xa0) || code === 0xad || (code >= 0x2000 && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202f) || code === 0x205f || code === 0x2060 || code === 0x3000 || code === 0xfeff;
  const shown = invisible ? `U+${code.toString(16).toUpperCase().padStart(4, "0")}` : char;
  return { offset, failure: { code: "unexpected-character", params: { character: shown } } };
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
      throw fail("nesting-too-deep", { max: MAX_NESTING }, { text, offset: token.startOffset, stage: "parse" });
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
export function miscasedKeywordError(text: string, token: IToken, stage: "parse" | "lower" | "check"): XqlError {
  return fail("miscased-keyword", { word: token.image }, { text, offset: token.startOffset, stage });
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
      return fail("unknown-timeframe", unknownTimeframe(written, TIMEFRAMES, true), { text, offset: token.startOffset, stage: "parse" });
    }
    if (!prefixOnly && tokens[i - 1]?.tokenType === T.Equals && tokens[i - 2]?.tokenType === T.Timeframe) {
      const written = glued && next.tokenType === T.Identifier ? token.image + next.image : token.image;
      return fail("unknown-timeframe", unknownTimeframe(written, TIMEFRAMES), { text, offset: token.startOffset, stage: "parse" });
    }
  }
  return undefined;
}

/** Lexes and parses `text`; throws `XqlError` at the first problem. */
export function parseText(text: string): ParsedText {
  const lexed = tokenize(text);
  const lexError = lexed.errors[0];
  if (lexError) {
    const { offset, failure } = lexerFailure(text, lexError.offset);
    throw failWith(failure, { text, offset, stage: "lex" });
  }
  checkNesting(text, lexed.tokens);
  // The cost guard's first limit (after the nesting check, whose error comes earlier in the text): parsing costs some µs per token, lexing far less, so an
  // over-long query is refused here, for the price of lexing it.
  if (lexed.tokens.length > MAX_QUERY_TOKENS) {
    throw fail("query-too-long", { max: MAX_QUERY_TOKENS, count: lexed.tokens.length }, { text, offset: lexed.tokens[MAX_QUERY_TOKENS]!.startOffset, stage: "lex" });
  }
  const parser = xqlParser();
  parser.input = lexed.tokens;
  let cst: QueryCstNode;
  try {
    cst = parser.query() as QueryCstNode;
  } catch (error) {
    if (error instanceof RangeError) {
      throw fail("query-too-complex", { what: "deeply nested to parse" }, { text, offset: 0, stage: "parse" });
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
    throw failWith(parseFailure(parseError.message), { text, offset, stage: "parse" });
  }
  // `1d::close` parses (as `1` then a second expression) yet is never meant that way.
  const counted = countedTimeframeError(text, lexed.tokens, text.length, true);
  if (counted) throw counted;
  return { text, tokens: lexed.tokens, cst };
}

export { XqlError };
