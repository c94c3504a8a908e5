import { describe, expect, it } from "vitest";
import { parseText, MAX_NESTING } from "../../src/syntax/parse.js";
import { tokenize } from "../../src/syntax/lexer.js";
import { XqlError } from "../../src/errors.js";

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';

function tokenNames(text: string): string[] {
  const { tokens, errors } = tokenize(text);
  expect(errors).toEqual([]);
  return tokens.map((t) => `${t.tokenType.name}:${t.image}`);
}

function parseError(text: string): { message: string; offset: number; line: number; column: number; stage: string } {
  try {
    parseText(text);
  } catch (error) {
    expect(error).toBeInstanceOf(XqlError);
    const e = error as XqlError;
    expect(e.type).toBe("syntax");
    return { message: e.message, ...e.position!, stage: e.stage };
  }
  throw new Error(`expected a syntax error for ${JSON.stringify(text)}`);
}

describe("lexer", () => {
  it("skips whitespace of every kind and line comments", () => {
    expect(tokenNames("close\t>\r\n1 // a comment\r2")).toEqual([
      "Identifier:close",
      "Greater:>",
      "NumberLiteral:1",
      "NumberLiteral:2",
    ]);
  });

  it("reads a timeframe prefix as one token, and only with two colons", () => {
    expect(tokenNames("d::close h4::rsi(14)")).toEqual([
      "TimeframePrefix:d::",
      "Identifier:close",
      "TimeframePrefix:h4::",
      "Identifier:rsi",
      "LParen:(",
      "NumberLiteral:14",
      "RParen:)",
    ]);
  });

  it("reads every number form of the spec", () => {
    expect(tokenNames("14 2.5 0.5 1e6 1E-3 2.5e+2")).toEqual([
      "NumberLiteral:14",
      "NumberLiteral:2.5",
      "NumberLiteral:0.5",
      "NumberLiteral:1e6",
      "NumberLiteral:1E-3",
      "NumberLiteral:2.5e+2",
    ]);
  });

  it("reads keywords only in lower case and only as whole words", () => {
    expect(tokenNames("and AND android notable not")).toEqual([
      "And:and",
      "Identifier:AND",
      "Identifier:android",
      "Identifier:notable",
      "Not:not",
    ]);
  });

  it("prefers the longest operator", () => {
    expect(tokenNames("<= < >= > == != =")).toEqual([
      "LessEqual:<=",
      "Less:<",
      "GreaterEqual:>=",
      "Greater:>",
      "EqualEqual:==",
      "NotEqual:!=",
      "Equals:=",
    ]);
  });

  it("reads strings with the two escapes", () => {
    expect(tokenNames('"a\\"b\\\\c"')).toEqual(['StringLiteral:"a\\"b\\\\c"']);
  });
});

describe("parse errors", () => {
  it("reports an unclosed call at the end of input", () => {
    expect(parseError("rsi(14")).toEqual({ message: "Unexpected end of input, expected ')'", offset: 6, line: 1, column: 7, stage: "parse" });
  });

  it("reports an unexpected token with what was expected", () => {
    expect(parseError(`${HEADER}timeframe h1`)).toMatchObject({ message: "Unexpected 'h1', expected '='", line: 3, column: 11 });
    expect(parseError(`${HEADER}limit = x`)).toMatchObject({ message: "Unexpected 'x', expected a number" });
    expect(parseError('market = FOREX')).toMatchObject({ message: 'Unexpected \'FOREX\', expected a string such as "FOREX"', offset: 9 });
  });

  it("reports a token that cannot start a statement", () => {
    expect(parseError(`${HEADER}close > 1)`)).toMatchObject({ message: "Unexpected ')'", offset: HEADER.length + 9 });
  });

  it("reports a missing operand", () => {
    expect(parseError(`${HEADER}close > `)).toMatchObject({ message: "Unexpected end of input, expected an expression", offset: HEADER.length + 8 });
  });

  it("names lexer errors at the offending character", () => {
    expect(parseError("close @ 1")).toEqual({ message: "Unexpected character '@'", offset: 6, line: 1, column: 7, stage: "lex" });
    expect(parseError('market = "FOREX')).toMatchObject({ message: "Unterminated string", offset: 9 });
    expect(parseError('market = "FO\\x"')).toMatchObject({ message: 'Invalid escape in string: only \\" and \\\\ are allowed', offset: 12 });
    expect(parseError("a\u0000")).toMatchObject({ message: "Unexpected character 'U+0000'", offset: 1 });
  });

  it("names invisible characters by code point (a no-break space pasted from a web page)", () => {
    expect(parseError(`${HEADER}close >\u00a01`)).toMatchObject({ message: "Unexpected character 'U+00A0'", offset: HEADER.length + 7 });
    expect(parseError(`${HEADER}close\u200b > 1`)).toMatchObject({ message: "Unexpected character 'U+200B'", offset: HEADER.length + 5 });
  });

  it("skips a byte-order mark at the very start, counting it in offsets; anywhere else it is a stray character", () => {
    const text = `\ufeff${HEADER}close > 1`;
    expect(() => parseText(text)).not.toThrow();
    expect(parseError(`\ufeff${HEADER}close >`)).toMatchObject({ message: "Unexpected end of input, expected an expression", offset: text.length - 2 });
    expect(parseError(`\ufeffclose @`)).toMatchObject({ line: 1, column: 8, offset: 7 });
    expect(parseError(`${HEADER}\ufeffclose > 1`)).toMatchObject({ message: "Unexpected character 'U+FEFF'", offset: HEADER.length });
    expect(parseError(`\ufeff\ufeff`)).toMatchObject({ message: "Unexpected character 'U+FEFF'", offset: 1 });
  });

  it("reports an astral character at its UTF-16 offset", () => {
    const text = `${HEADER}close > 1 🚀 and true`;
    expect(parseError(text)).toMatchObject({ message: "Unexpected character '🚀'", offset: text.indexOf("🚀") });
    // After an emoji inside a comment, columns count both UTF-16 units of the emoji.
    expect(parseError("// 🚀\n🚀")).toMatchObject({ offset: 6, line: 2, column: 1 });
    expect(parseError("close 🚀 @")).toMatchObject({ offset: 6, column: 7 });
  });

  it("counts \\r, \\n and \\r\\n as one line break each", () => {
    expect(parseError("a\r\nb\rc\nd @")).toMatchObject({ offset: 9, line: 4, column: 3 });
    expect(parseError("\r\r\n\n@")).toMatchObject({ offset: 4, line: 4, column: 1 });
  });
});

describe("nesting", () => {
  const nested = (depth: number): string => `${HEADER}${"(".repeat(depth)}close > 1${")".repeat(depth)}`;

  it(`accepts ${MAX_NESTING} levels of parentheses`, () => {
    expect(() => parseText(nested(MAX_NESTING))).not.toThrow();
  });

  it(`rejects level ${MAX_NESTING + 1} at its token`, () => {
    expect(parseError(nested(MAX_NESTING + 1))).toMatchObject({
      message: "Expression nested too deeply: at most 64 levels of parentheses, brackets and prefix operators",
      offset: HEADER.length + MAX_NESTING,
    });
  });

  it("rejects 20,000 open parentheses without overflowing the stack", () => {
    const error = parseError(`${HEADER}${"(".repeat(20_000)}`);
    expect(error.message).toMatch(/^Expression nested too deeply/);
    expect(error.offset).toBe(HEADER.length + MAX_NESTING);
  });

  it("counts prefix operators and brackets too", () => {
    expect(parseError(`${HEADER}${"not ".repeat(70)}true`).message).toMatch(/^Expression nested too deeply/);
    expect(parseError(`${HEADER}${"-".repeat(70)}close > 0`).message).toMatch(/^Expression nested too deeply/);
    expect(parseError(`${HEADER}${"d::".repeat(70)}close > 0`).message).toMatch(/^Expression nested too deeply/);
    expect(parseError(`${HEADER}close${"[1]".repeat(70)} > 0`).message).toMatch(/^Expression nested too deeply/);
    expect(() => parseText(`${HEADER}close${"[1]".repeat(60)} > 0`)).not.toThrow();
  });
});
