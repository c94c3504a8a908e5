import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validate } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import type { Expression } from "../../src/ast/nodes.js";
import { printExpression, printQuery } from "../../src/ast/print.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { arbitraryExpression, arbitraryMutation, arbitraryQuery, stripSpans } from "../../src/testing/index.js";

const walk = (e: Expression, visit: (e: Expression) => void): void => {
  const stack = [e];
  while (stack.length) {
    const n = stack.pop()!;
    visit(n);
    if (n.kind === "call") stack.push(...n.args);
    else if (n.kind === "unary") stack.push(n.operand);
    else if (n.kind === "binary") stack.push(n.left, n.right);
    else if (n.kind === "timeframe" || n.kind === "history") stack.push(n.expression);
  }
};

describe("arbitraryQuery", () => {
  it("generates valid queries whose text is the printed AST", () => {
    fc.assert(
      fc.property(arbitraryQuery(), ({ text, ast }) => {
        expect(validate(text)).toEqual({ valid: true });
        expect(printQuery(ast)).toBe(text);
        for (const s of ast.statements) {
          if (s.kind === "columns") for (const c of s.columns) expect(c.text).toBe(printExpression(c.expression));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("uses zero spans, every statement kind and custom markets", () => {
    const samples = fc.sample(arbitraryQuery({ markets: ["NYSE"] }), { numRuns: 200, seed: 7 });
    const kinds = new Set(samples.flatMap(({ ast }) => ast.statements.map((s) => s.kind)));
    expect([...kinds].sort()).toEqual(["columns", "condition", "let", "limit", "market", "sort", "timeframeSetting"]);
    expect(samples[0]!.ast.span).toEqual({ start: 0, end: 0 });
    for (const { text } of samples) expect(validate(text, { markets: ["NYSE"] })).toEqual({ valid: true });
  });
});

describe("arbitraryExpression", () => {
  it("reaches every function of the registry, with and without its optional source", () => {
    const seen = new Set<string>();
    // Scaled with the registry, so each function is still reached when modules are added.
    for (const e of fc.sample(arbitraryExpression(), { numRuns: Math.max(1500, 100 * FUNCTIONS.size), seed: 1 })) {
      walk(e, (n) => {
        if (n.kind === "call") seen.add(`${n.callee}/${n.args.length}`);
        else if (n.kind === "identifier" && FUNCTIONS.get(n.name)?.params.length === 0) seen.add(`${n.name}/0`);
      });
    }
    for (const fn of FUNCTIONS.values()) {
      expect(seen.has(`${fn.name}/${fn.params.length}`), fn.name).toBe(true);
      if (fn.params[0]?.default) expect(seen.has(`${fn.name}/${fn.params.length - 1}`), `${fn.name} without source`).toBe(true);
    }
  });

  it("respects the requested type", () => {
    const header = 'market = "FOREX"\ntimeframe = h1\n';
    fc.assert(
      fc.property(arbitraryExpression({ type: "number", timeframe: "h1", maxDepth: 3 }), (e) => {
        expect(validate(`${header}${printExpression(e)} > 0`)).toEqual({ valid: true });
      }),
      { numRuns: 200 },
    );
  });

  it("uses only the let names it is given, with their types", () => {
    const lets = [{ name: "flag", type: "boolean" as const }];
    // The ";" ends the let: a condition starting with "-" or "(" would otherwise continue it.
    const header = 'market = "FOREX"\ntimeframe = h1\nlet flag = close > open;\n';
    fc.assert(
      fc.property(arbitraryExpression({ type: "boolean", lets, timeframe: "h1" }), (e) => {
        expect(validate(header + printExpression(e))).toEqual({ valid: true });
      }),
      { numRuns: 200 },
    );
  });
});

describe("arbitraryMutation", () => {
  it("changes the text, a little", () => {
    const query = 'market = "FOREX"\ntimeframe = h1\nrsi(14) < 30 and close > d::sma(200)';
    const samples = fc.sample(arbitraryMutation(query), { numRuns: 300, seed: 3 });
    const changed = samples.filter((s) => s !== query);
    expect(changed.length).toBeGreaterThan(250);
    // Near-valid: most mutations break the query, and some leave it valid.
    const valid = samples.filter((s) => "valid" in validate(s) && validate(s).valid).length;
    expect(valid).toBeGreaterThan(0);
    expect(valid).toBeLessThan(samples.length);
    for (const s of samples) expect(Math.abs(s.length - query.length)).toBeLessThanOrEqual(query.length);
  });
});

describe("stripSpans", () => {
  it("removes every span and keeps everything else", () => {
    const ast = parse('market = "FOREX"\ntimeframe = h1\nlet a = rsi(14)\na < 30');
    const text = JSON.stringify(stripSpans(ast));
    expect(text).not.toMatch(/span/i);
    expect(text).toContain('"callee":"rsi"');
    expect(ast.statements[2]).toHaveProperty("nameSpan"); // the input is not modified
  });
});
