/**
 * The process's parser skips Chevrotain's definition checks, and its lexer is ours (lexer.ts):
 * checks that cost a cold start tens of milliseconds. These tests run Chevrotain's checks on the
 * same definitions, so a defect in tokens.ts or parser.ts still fails.
 */
import { describe, expect, it } from "vitest";
import type { Lexer as ChevrotainLexer, TokenType } from "chevrotain";
import { createToken, Lexer } from "../../src/syntax/chevrotain.js";
import { XqlParser, xqlParser } from "../../src/syntax/parser.js";
import { Identifier, allTokens } from "../../src/syntax/tokens.js";

/** Chevrotain's lexer with its validations on, over the tokens that match text (a category matches none of its own). */
function validatedLexer(tokens: TokenType[]): ChevrotainLexer {
  return new Lexer(
    tokens.filter((t) => t.PATTERN !== undefined),
    { positionTracking: "onlyOffset", skipValidations: false },
  );
}

describe("Chevrotain's definition checks, skipped at run time", () => {
  it("the token definitions pass the lexer's validations", () => {
    expect(() => validatedLexer(allTokens)).not.toThrow();
  });

  it("the lexer's validations are on in that check: an unreachable token fails it", () => {
    // Identifier matches this keyword-like token's text, and comes first.
    const shadowed = createToken({ name: "Shadowed", pattern: "shadowed" });
    const tokens = [...allTokens.slice(0, allTokens.indexOf(Identifier) + 1), shadowed, ...allTokens.slice(allTokens.indexOf(Identifier) + 1)];
    expect(() => validatedLexer(tokens)).toThrow(/Shadowed/);
  });

  it("the grammar passes the parser's validations (ambiguity, left recursion, ...)", () => {
    // performSelfAnalysis throws on a grammar defect when validations are on.
    expect(() => new XqlParser({ validate: true })).not.toThrow();
  });

  it("the process's parser is built once", () => {
    expect(xqlParser()).toBe(xqlParser());
  });
});
