/**
 * Stage `lex`: query text → tokens, by the definitions of tokens.ts and Chevrotain's lexing
 * rules, without Chevrotain's `Lexer`. That class analyses the patterns when it is built (their
 * regular expressions parsed to find each one's first characters, a 65,536-entry table filled):
 * 17 ms of every cold start, over 40 tokens whose first characters tokens.ts states
 * (`start_chars_hint`). Here the table is those hints, built at module load in microseconds.
 *
 * The rules, as Chevrotain applies them: at each offset the tokens that may start with the
 * character there are tried in the order of `allTokens`, and the first that matches wins;
 * if it has a `longer_alt` that matches more text, that one wins instead (`and` against `andx`).
 * A token with a group (whitespace, comments) is consumed and left out. Where nothing matches,
 * the error spans the characters up to the next offset where something does.
 * `test/syntax/lexer.test.ts` holds this lexer to Chevrotain's on generated texts.
 */
import type { IToken, TokenType } from "chevrotain";
import { allTokens } from "./tokens.js";

/** Characters no token matches, from `offset`, `length` long. */
export interface LexError {
  readonly offset: number;
  readonly length: number;
}

export interface Lexed {
  readonly tokens: IToken[];
  readonly errors: LexError[];
}

/** The length of the token's match at `offset`, or -1. */
type Matcher = (text: string, offset: number) => number;

interface Candidate {
  readonly tokenType: TokenType;
  readonly match: Matcher;
  /** The `longer_alt` tokens, tried when this one matches (`Identifier` after a keyword). */
  readonly longerAlternatives: Candidate[];
  readonly skipped: boolean;
}

function matcherOf(tokenType: TokenType): Matcher {
  const pattern = tokenType.PATTERN;
  if (typeof pattern === "string") return (text, offset) => (text.startsWith(pattern, offset) ? pattern.length : -1);
  if (pattern instanceof RegExp) {
    const sticky = new RegExp(pattern.source, `${pattern.flags}y`);
    return (text, offset) => {
      sticky.lastIndex = offset;
      return sticky.test(text) ? sticky.lastIndex - offset : -1;
    };
  }
  if (typeof pattern === "function") {
    return (text, offset) => {
      const found = pattern(text, offset, [], {});
      return found === null ? -1 : found[0].length;
    };
  }
  throw new Error(`internal: token ${tokenType.name} has no pattern this lexer can run`);
}

/** The characters a token's match can start with: a string's first, or its stated hint. */
function startCodes(tokenType: TokenType): Set<number> {
  const pattern = tokenType.PATTERN;
  if (typeof pattern === "string") return new Set([pattern.charCodeAt(0)]);
  const hint = tokenType.START_CHARS_HINT;
  if (hint === undefined) throw new Error(`internal: token ${tokenType.name} needs start_chars_hint`);
  return new Set(hint.map((c) => (typeof c === "string" ? c.charCodeAt(0) : c)));
}

/** Every token that matches text (a category such as `ComparisonOperator` does not), in order. */
const candidates: Candidate[] = allTokens
  .filter((tokenType) => tokenType.PATTERN !== undefined)
  .map((tokenType) => ({ tokenType, match: matcherOf(tokenType), longerAlternatives: [], skipped: tokenType.GROUP !== undefined }));
for (const candidate of candidates) {
  const longer = candidate.tokenType.LONGER_ALT;
  for (const tokenType of longer === undefined ? [] : Array.isArray(longer) ? longer : [longer]) {
    const alternative = candidates.find((c) => c.tokenType === tokenType);
    if (alternative === undefined) throw new Error(`internal: token ${tokenType.name} is a longer_alt but not in allTokens`);
    candidate.longerAlternatives.push(alternative);
  }
}

/** The tokens that may start with each ASCII character, in order; `byOtherStartCode` beyond. */
const byAsciiStartCode: Candidate[][] = Array.from({ length: 128 }, () => []);
const byOtherStartCode = new Map<number, Candidate[]>();
for (const candidate of candidates) {
  for (const code of startCodes(candidate.tokenType)) {
    if (code < 128) byAsciiStartCode[code]!.push(candidate);
    else byOtherStartCode.set(code, [...(byOtherStartCode.get(code) ?? []), candidate]);
  }
}

const NONE: readonly Candidate[] = [];

function startingWith(code: number): readonly Candidate[] {
  return code < 128 ? byAsciiStartCode[code]! : (byOtherStartCode.get(code) ?? NONE);
}

function matchesAt(text: string, offset: number): boolean {
  for (const candidate of candidates) if (candidate.match(text, offset) !== -1) return true;
  return false;
}

/** Lexes `text`; never throws. Tokens carry start and end offsets (inclusive), no lines. */
export function tokenize(text: string): Lexed {
  const tokens: IToken[] = [];
  const errors: LexError[] = [];
  let offset = 0;
  while (offset < text.length) {
    let chosen: Candidate | undefined;
    let length = -1;
    for (const candidate of startingWith(text.charCodeAt(offset))) {
      length = candidate.match(text, offset);
      if (length === -1) continue;
      chosen = candidate;
      for (const longer of candidate.longerAlternatives) {
        const longerLength = longer.match(text, offset);
        if (longerLength > length) {
          chosen = longer;
          length = longerLength;
          break;
        }
      }
      break;
    }
    if (chosen === undefined) {
      const start = offset;
      do offset++;
      while (offset < text.length && !matchesAt(text, offset));
      errors.push({ offset: start, length: offset - start });
      continue;
    }
    if (!chosen.skipped) {
      const tokenType = chosen.tokenType;
      tokens.push({
        image: text.substring(offset, offset + length),
        startOffset: offset,
        endOffset: offset + length - 1,
        tokenTypeIdx: tokenType.tokenTypeIdx!,
        tokenType,
      });
    }
    offset += length;
  }
  return { tokens, errors };
}
