/**
 * The process's parser decides with the lookahead recorded by `npm run gen` (src/syntax/lookahead.ts);
 * these tests hold it to a parser built with Chevrotain's own LL(k) lookahead, computed from the
 * grammar: the same CST, or the same error at the same token, on any text.
 */
import type { Rule } from "chevrotain";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tokenize } from "../../src/syntax/lexer.js";
import { RecordedLookahead } from "../../src/syntax/lookahead.js";
import { XqlParser, xqlParser } from "../../src/syntax/parser.js";
import { arbitraryMutation, arbitraryQuery } from "../../src/testing/index.js";

const SCALE = Number(process.env.FC_RUNS ?? 300) / 300;
const chevrotains = new XqlParser({ validate: true });

function parseWith(parser: XqlParser, text: string): unknown {
  parser.input = tokenize(text).tokens;
  try {
    const cst = parser.query();
    return { cst, errors: parser.errors.map((e) => ({ name: e.name, message: e.message, offset: e.token.startOffset })) };
  } catch (error) {
    return { threw: error instanceof Error ? error.name : String(error) };
  }
}

const text = fc.oneof(
  arbitraryQuery().chain(({ text }) => fc.oneof(fc.constant(text), arbitraryMutation(text))),
  fc.string({ unit: fc.constantFrom("(", ")", "[", "]", ",", ";", "-", "+", "*", "/", "<", "<=", "==", "!=", "not ", "and ", "or ", "d::", "close", "rsi", "1", "true", "asc", "desc", "market", "timeframe", "columns", "sort", "limit", "let", "=", '"FOREX"', "x", " "), maxLength: 40 }),
);

describe("the recorded lookahead", () => {
  it("parses every text as Chevrotain's own lookahead does", () => {
    fc.assert(
      fc.property(text, (source) => {
        expect(parseWith(xqlParser(), source)).toEqual(parseWith(chevrotains, source));
      }),
      { numRuns: Math.round(1000 * SCALE) },
    );
  });

  it("names npm run gen for a decision it has no paths for (a rule added since)", () => {
    const rule = { name: "extra" } as Rule;
    expect(() => new RecordedLookahead().buildLookaheadForOptional({ prodOccurrence: 0, prodType: "Option", rule })).toThrow(
      /no recorded lookahead for extra:Option:0: the grammar changed, run npm run gen/,
    );
  });
});
