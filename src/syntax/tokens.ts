/**
 * XQL tokens, as Chevrotain token types: the parser's vocabulary and the lexer's definitions
 * (lexer.ts). Keywords are lower case and reserved; `<name>::` is one token so that `d::close`
 * needs no lookahead and an unknown timeframe (`x1::close`) can be reported at its own token.
 * A pattern that is a regular expression states the characters it can start with
 * (`start_chars_hint`): the lexer tries only those tokens there.
 */
import type { TokenType } from "chevrotain";
import { createToken } from "./chevrotain.js";

/**
 * The group of the tokens the lexer consumes and leaves out. (Chevrotain's own lexer, which the
 * tests compare with, puts a group's tokens aside from the main vector too.)
 */
const SKIPPED = "skipped";

const LETTERS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"];
const DIGITS = [..."0123456789"];

export const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /[ \t\r\n]+/, start_chars_hint: [" ", "\t", "\r", "\n"], group: SKIPPED });
/**
 * A byte-order mark at the very start of the text, as editors on Windows save one: skipped.
 * Anywhere else U+FEFF is a stray character. It still counts in offsets and columns.
 */
export const ByteOrderMark = createToken({
  name: "ByteOrderMark",
  pattern: (text: string, offset: number): [string] | null => (offset === 0 && text.charCodeAt(0) === 0xfeff ? ["\ufeff"] : null),
  start_chars_hint: ["\ufeff"],
  line_breaks: false,
  group: SKIPPED,
});
export const Comment = createToken({ name: "Comment", pattern: /\/\/[^\r\n]*/, start_chars_hint: ["/"], group: SKIPPED });

export const TimeframePrefix = createToken({ name: "TimeframePrefix", pattern: /[A-Za-z_][A-Za-z0-9_]*::/, start_chars_hint: LETTERS });
export const Identifier = createToken({ name: "Identifier", pattern: /[A-Za-z_][A-Za-z0-9_]*/, start_chars_hint: LETTERS });

const keyword = (word: string): TokenType =>
  createToken({ name: word[0]!.toUpperCase() + word.slice(1), pattern: word, longer_alt: Identifier });

export const Market = keyword("market");
export const Timeframe = keyword("timeframe");
export const Columns = keyword("columns");
export const Sort = keyword("sort");
export const Limit = keyword("limit");
export const Symbols = keyword("symbols");
export const Watchlist = keyword("watchlist");
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
  "symbols",
  "watchlist",
  "let",
  "and",
  "or",
  "not",
  "asc",
  "desc",
  "true",
  "false",
] as const;

export const NumberLiteral = createToken({ name: "NumberLiteral", pattern: /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/, start_chars_hint: DIGITS });
export const StringLiteral = createToken({ name: "StringLiteral", pattern: /"(?:[^"\\\r\n]|\\["\\])*"/, start_chars_hint: ['"'] });

export const ComparisonOperator = createToken({ name: "ComparisonOperator" });
export const LessEqual = createToken({ name: "LessEqual", pattern: "<=", categories: ComparisonOperator });
export const GreaterEqual = createToken({ name: "GreaterEqual", pattern: ">=", categories: ComparisonOperator });
export const EqualEqual = createToken({ name: "EqualEqual", pattern: "==", categories: ComparisonOperator });
export const NotEqual = createToken({ name: "NotEqual", pattern: "!=", categories: ComparisonOperator });
export const Less = createToken({ name: "Less", pattern: "<", categories: ComparisonOperator });
export const Greater = createToken({ name: "Greater", pattern: ">", categories: ComparisonOperator });

export const AdditiveOperator = createToken({ name: "AdditiveOperator" });
export const Plus = createToken({ name: "Plus", pattern: "+", categories: AdditiveOperator });
export const Minus = createToken({ name: "Minus", pattern: "-", categories: AdditiveOperator });

export const MultiplicativeOperator = createToken({ name: "MultiplicativeOperator" });
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
  Symbols,
  Watchlist,
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
