/**
 * XQL tokens. The lexer is built once per process, on first use. Keywords are lower case and reserved;
 * `<name>::` is one token so that `d::close` needs no lookahead and an unknown timeframe
 * (`x1::close`) can be reported at its own token.
 */
import type { ILexerConfig, Lexer as ChevrotainLexer, TokenType } from "chevrotain";
import { createToken, Lexer } from "./chevrotain.js";

export const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /[ \t\r\n]+/, group: Lexer.SKIPPED });
/**
 * A byte-order mark at the very start of the text, as editors on Windows save one: skipped.
 * Anywhere else U+FEFF is a stray character. It still counts in offsets and columns.
 */
export const ByteOrderMark = createToken({
  name: "ByteOrderMark",
  pattern: (text: string, offset: number): [string] | null => (offset === 0 && text.charCodeAt(0) === 0xfeff ? ["\ufeff"] : null),
  start_chars_hint: ["\ufeff"],
  line_breaks: false,
  group: Lexer.SKIPPED,
});
export const Comment = createToken({ name: "Comment", pattern: /\/\/[^\r\n]*/, group: Lexer.SKIPPED });

export const TimeframePrefix = createToken({ name: "TimeframePrefix", pattern: /[A-Za-z_][A-Za-z0-9_]*::/ });
export const Identifier = createToken({ name: "Identifier", pattern: /[A-Za-z_][A-Za-z0-9_]*/ });

const keyword = (word: string): TokenType =>
  createToken({ name: word[0]!.toUpperCase() + word.slice(1), pattern: word, longer_alt: Identifier });

export const Market = keyword("market");
export const Timeframe = keyword("timeframe");
export const Columns = keyword("columns");
export const Sort = keyword("sort");
export const Limit = keyword("limit");
export const Let = keyword("let");
export const And = keyword("and");
export const Or = keyword("or");
export const Not = keyword("not");
export const Asc = keyword("asc");
export const Desc = keyword("desc");
export const True = keyword("true");
export const False = keyword("false");

export const KEYWORDS = [
  "market",
  "timeframe",
  "columns",
  "sort",
  "limit",
  "let",
  "and",
  "or",
  "not",
  "asc",
  "desc",
  "true",
  "false",
] as const;

export const NumberLiteral = createToken({ name: "NumberLiteral", pattern: /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/ });
export const StringLiteral = createToken({ name: "StringLiteral", pattern: /"(?:[^"\\\r\n]|\\["\\])*"/ });

export const ComparisonOperator = createToken({ name: "ComparisonOperator", pattern: Lexer.NA });
export const LessEqual = createToken({ name: "LessEqual", pattern: "<=", categories: ComparisonOperator });
export const GreaterEqual = createToken({ name: "GreaterEqual", pattern: ">=", categories: ComparisonOperator });
export const EqualEqual = createToken({ name: "EqualEqual", pattern: "==", categories: ComparisonOperator });
export const NotEqual = createToken({ name: "NotEqual", pattern: "!=", categories: ComparisonOperator });
export const Less = createToken({ name: "Less", pattern: "<", categories: ComparisonOperator });
export const Greater = createToken({ name: "Greater", pattern: ">", categories: ComparisonOperator });

export const AdditiveOperator = createToken({ name: "AdditiveOperator", pattern: Lexer.NA });
export const Plus = createToken({ name: "Plus", pattern: "+", categories: AdditiveOperator });
export const Minus = createToken({ name: "Minus", pattern: "-", categories: AdditiveOperator });

export const MultiplicativeOperator = createToken({ name: "MultiplicativeOperator", pattern: Lexer.NA });
export const Star = createToken({ name: "Star", pattern: "*", categories: MultiplicativeOperator });
export const Slash = createToken({ name: "Slash", pattern: "/", categories: MultiplicativeOperator });

export const Equals = createToken({ name: "Equals", pattern: "=" });
export const LParen = createToken({ name: "LParen", pattern: "(" });
export const RParen = createToken({ name: "RParen", pattern: ")" });
export const LBracket = createToken({ name: "LBracket", pattern: "[" });
export const RBracket = createToken({ name: "RBracket", pattern: "]" });
export const Comma = createToken({ name: "Comma", pattern: "," });
export const Semicolon = createToken({ name: "Semicolon", pattern: ";" });

/** Lexing order matters: comments before `/`, prefixes before names, keywords before names, `<=` before `<`. */
export const allTokens: TokenType[] = [
  ByteOrderMark,
  WhiteSpace,
  Comment,
  TimeframePrefix,
  Market,
  Timeframe,
  Columns,
  Sort,
  Limit,
  Let,
  And,
  Or,
  Not,
  Asc,
  Desc,
  True,
  False,
  Identifier,
  NumberLiteral,
  StringLiteral,
  ComparisonOperator,
  LessEqual,
  GreaterEqual,
  EqualEqual,
  NotEqual,
  Less,
  Greater,
  AdditiveOperator,
  Plus,
  Minus,
  MultiplicativeOperator,
  Star,
  Slash,
  Equals,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Semicolon,
];

/** How each token is named in an error message: `expected ')'`, `expected a number`. */
export const TOKEN_LABELS: Readonly<Record<string, string>> = {
  TimeframePrefix: "a timeframe prefix such as d::",
  Identifier: "a name",
  NumberLiteral: "a number",
  StringLiteral: 'a string such as "FOREX"',
  ComparisonOperator: "a comparison operator",
  AdditiveOperator: "'+' or '-'",
  MultiplicativeOperator: "'*' or '/'",
  LessEqual: "'<='",
  GreaterEqual: "'>='",
  EqualEqual: "'=='",
  NotEqual: "'!='",
  Less: "'<'",
  Greater: "'>'",
  Plus: "'+'",
  Minus: "'-'",
  Star: "'*'",
  Slash: "'/'",
  Equals: "'='",
  LParen: "'('",
  RParen: "')'",
  LBracket: "'['",
  RBracket: "']'",
  Comma: "','",
  Semicolon: "';'",
  ...Object.fromEntries(KEYWORDS.map((k) => [k[0]!.toUpperCase() + k.slice(1), `'${k}'`])),
};

/**
 * The lexer's settings. Chevrotain's validations of the token definitions are skipped at run
 * time (they cost a cold start milliseconds and can only fail when this file changes);
 * `test/syntax/definitions.test.ts` runs them.
 */
export const LEXER_CONFIG: ILexerConfig = {
  positionTracking: "onlyOffset",
  ensureOptimizations: false,
  skipValidations: true,
};

let lexer: ChevrotainLexer | undefined;

/**
 * The one lexer of the process, built on first use: analysing the token patterns costs a cold
 * start milliseconds, which a program that imports the core and never lexes (a server
 * starting, `xql keys`) should not pay.
 */
export function xqlLexer(): ChevrotainLexer {
  return (lexer ??= new Lexer(allTokens, LEXER_CONFIG));
}
