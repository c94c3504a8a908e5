/**
 * The lexer (src/syntax/lexer.ts) runs Chevrotain's lexing rules over tokens.ts without
 * Chevrotain's `Lexer`: these tests hold it to that class, built here with its first-character
 * table off (`safeMode`, every token tried everywhere), so a `start_chars_hint` that leaves out
 * a character a pattern can start with makes the two disagree.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Lexer } from "../../src/syntax/chevrotain.js";
import { tokenize } from "../../src/syntax/lexer.js";
import { allTokens } from "../../src/syntax/tokens.js";
import { arbitraryMutation, arbitraryQuery } from "../../src/testing/index.js";

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';
const SCALE = Number(process.env.FC_RUNS ?? 300) / 300;

/** Chevrotain's own lexer over the same definitions (a category has no pattern of its own: it is left out). */
const chevrotain = new Lexer(
  allTokens.filter((t) => t.PATTERN !== undefined),
  { positionTracking: "onlyOffset", safeMode: true, ensureOptimizations: false },
);

function both(text: string): { ours: unknown; theirs: unknown } {
  const ours = tokenize(text);
  const theirs = chevrotain.tokenize(text);
  const shape = (tokens: readonly { image: string; startOffset: number; tokenType: { name: string } }[]) =>
    tokens.map((t) => [t.tokenType.name, t.image, t.startOffset]);
  return {
    ours: { tokens: shape(ours.tokens), errors: ours.errors.map((e) => [e.offset, e.length]) },
    theirs: { tokens: shape(theirs.tokens), errors: theirs.errors.map((e) => [e.offset, e.length]) },
  };
}

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: fc.constantFrom(..."()[],;=<>!+-*/:\"\\ \n\r\t\ufeff\u00a0abcdhlmwsortxAZ_0123456789.eE'&|#"), maxLength: 120 }),
  fc.string({ unit: "grapheme", maxLength: 40 }).map((s) => HEADER + s),
  fc.string({ unit: "binary", maxLength: 40 }).map((s) => `\ufeff${s}`),
  fc.string({ unit: fc.constantFrom("and", "andx", "or", "not", "notable", "d::", "x1::", "1.5e3", "1e", '"a\\"b"', '"x', "// c\n", "<=", "==", "!=", " "), maxLength: 30 }).map((s) => s),
);

describe("lexer", () => {
  it("gives the tokens and errors Chevrotain's lexer gives, on any text", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const { ours, theirs } = both(text);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: Math.round(1000 * SCALE) },
    );
  });

  it("gives the tokens Chevrotain's lexer gives on queries and near-valid queries", () => {
    fc.assert(
      fc.property(
        arbitraryQuery().chain(({ text }) => fc.oneof(fc.constant(text), arbitraryMutation(text))),
        (text) => {
          const { ours, theirs } = both(text);
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: Math.round(300 * SCALE) },
    );
  });

  it("prefers a keyword's longer identifier, and a prefix over a name", () => {
    const names = (text: string) => tokenize(text).tokens.map((t) => `${t.tokenType.name}:${t.image}`);
    expect(names("and andx d::close not_")).toEqual(["And:and", "Identifier:andx", "TimeframePrefix:d::", "Identifier:close", "Identifier:not_"]);
  });

  it("skips a byte-order mark at the start only, and reports the stray characters up to the next token", () => {
    expect(tokenize("\ufeffclose").tokens.map((t) => t.image)).toEqual(["close"]);
    expect(tokenize("close \ufeff\u00a0# > 1")).toMatchObject({ errors: [{ offset: 6, length: 3 }] });
    expect(tokenize("1 @@").errors).toEqual([{ offset: 2, length: 2 }]);
  });

  it("gives each token its inclusive end offset", () => {
    expect(tokenize("rsi(14)").tokens.map((t) => [t.startOffset, t.endOffset])).toEqual([
      [0, 2],
      [3, 3],
      [4, 5],
      [6, 6],
    ]);
  });
});
