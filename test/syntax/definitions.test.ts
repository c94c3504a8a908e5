/**
 * The process's lexer and parser skip Chevrotain's definition checks, which cost a cold start
 * tens of milliseconds: these tests run them, so a defect in tokens.ts or parser.ts still fails.
 */
import { describe, expect, it } from "vitest";
import { createToken, Lexer } from "../../src/syntax/chevrotain.js";
import { XqlParser, xqlParser } from "../../src/syntax/parser.js";
import { Identifier, LEXER_CONFIG, allTokens, xqlLexer } from "../../src/syntax/tokens.js";

describe("Chevrotain's definition checks, skipped at run time", () => {
  it("the token definitions pass the lexer's validations", () => {
    expect(() => new Lexer(allTokens, { ...LEXER_CONFIG, skipValidations: false })).not.toThrow();
  });

  it("the lexer's validations are on in that check: an unreachable token fails it", () => {
    // Identifier matches this keyword-like token's text, and comes first.
    const shadowed = createToken({ name: "Shadowed", pattern: "shadowed" });
    const tokens = [...allTokens.slice(0, allTokens.indexOf(Identifier) + 1), shadowed, ...allTokens.slice(allTokens.indexOf(Identifier) + 1)];
    expect(() => new Lexer(tokens, { ...LEXER_CONFIG, skipValidations: false })).toThrow(/Shadowed/);
    expect(() => new Lexer(tokens, LEXER_CONFIG)).not.toThrow();
  });

  it("the grammar passes the parser's validations (ambiguity, left recursion, ...)", () => {
    // performSelfAnalysis throws on a grammar defect when validations are on.
    expect(() => new XqlParser({ validate: true })).not.toThrow();
  });

  it("the process's lexer and parser are each built once", () => {
    expect(xqlLexer()).toBe(xqlLexer());
    expect(xqlParser()).toBe(xqlParser());
  });
});
