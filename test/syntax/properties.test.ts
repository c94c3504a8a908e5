/**
 * Grammar properties over the `xql/testing` generators: print → parse is the identity on
 * ASTs, and no text whatsoever makes validate or explain throw or answer outside the spec's
 * shape.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, validate, explain } from "../../src/api.js";
import { ERROR_CATALOGUE, XqlError } from "../../src/errors.js";
import { parse } from "../../src/ast/lower.js";
import type { Condition } from "../../src/ast/nodes.js";
import { printExpression, printQuery } from "../../src/ast/print.js";
import { arbitraryExpression, arbitraryMutation, arbitraryQuery, stripSpans } from "../../src/testing/index.js";
import { expectErrorShape } from "./positions.js";

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';
/** FC_RUNS=20000 npx vitest run test/syntax digs deeper than the default. */
const SCALE = Number(process.env.FC_RUNS ?? 300) / 300;
const runs = (n: number): { numRuns: number } => ({ numRuns: Math.round(n * SCALE) });
const RUNS = runs(300);

/** A valid query or a mutation of one: most are one mistake away from valid. */
const nearValidText = arbitraryQuery().chain(({ text }) => arbitraryMutation(text));

/** Any text at all: UTF-16 units (lone surrogates included), full code points, and the language's alphabet. */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: fc.constantFrom(..."()[],;=<>!+-*/:\"\\ \n\r\tabcdhlmwsortx0123456789.e_"), maxLength: 120 }),
  fc.string({ unit: "grapheme", maxLength: 40 }).map((s) => HEADER + s),
  fc.string({ unit: fc.constantFrom("(", "[", "-", "not ", "d::", "close", "1", ")", "]", " "), maxLength: 200 }).map((s) => HEADER + s),
);

describe("print → parse round trip", () => {
  it("parses a printed expression back to the same expression", () => {
    fc.assert(
      fc.property(arbitraryExpression(), (expression) => {
        const text = printExpression(expression);
        const condition = parse(HEADER + text).statements[2] as Condition;
        expect(stripSpans(condition.expression)).toEqual(stripSpans(expression));
      }),
      runs(500),
    );
  });

  it("parses a printed query back to the same query", () => {
    fc.assert(
      fc.property(arbitraryQuery(), ({ text, ast }) => {
        expect(stripSpans(parse(text))).toEqual(stripSpans(ast));
      }),
      RUNS,
    );
  });

  it("prints a parsed query to a fixed point", () => {
    fc.assert(
      fc.property(arbitraryQuery(), ({ text }) => {
        expect(printQuery(parse(text))).toBe(text);
      }),
      RUNS,
    );
  });

  it("re-parses a mutated query that still parses to the AST of its own printing", () => {
    fc.assert(
      fc.property(nearValidText, (text) => {
        let ast;
        try {
          ast = parse(text);
        } catch {
          return; // a syntax error: the other properties cover those
        }
        expect(stripSpans(parse(printQuery(ast)))).toEqual(stripSpans(ast));
      }),
      RUNS,
    );
  });
});

describe("validate and explain never throw", () => {
  const checkBoth = (text: string): void => {
    const v = validate(text);
    const e = explain(text);
    if ("valid" in v && v.valid) {
      expect(v).toEqual({ valid: true });
      expect(Object.keys(e).sort()).toEqual(["explanation", "plan"]);
    } else {
      expectErrorShape(text, v);
      // explain fails with exactly the same body
      expect(e).toEqual(v);
      // compile throws it as an XqlError raised by a catalogue code, of that entry's type, from one of its stages.
      let error: unknown;
      try {
        compile(text);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(XqlError);
      const { code, stage, body } = error as XqlError;
      const entry = ERROR_CATALOGUE.find((k) => k.code === code);
      expect(entry, code).toBeDefined();
      expect(body).toEqual(v.error);
      expect(body.type).toBe(entry!.type);
      expect(entry!.stages).toContain(stage);
    }
  };

  it("answers arbitrary strings with the spec's shape", () => {
    fc.assert(fc.property(anyText, checkBoth), runs(500));
  });

  it("answers mutated valid queries with the spec's shape", () => {
    fc.assert(fc.property(nearValidText, checkBoth), runs(500));
  });

  it("is deterministic: the same text gives the same answer", () => {
    fc.assert(
      fc.property(fc.oneof(nearValidText, anyText), (text) => {
        expect(validate(text)).toEqual(validate(text));
        expect(explain(text)).toEqual(explain(text));
      }),
      RUNS,
    );
  });
});
