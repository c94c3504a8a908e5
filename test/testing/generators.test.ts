import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, validate } from "../../src/api.js";
import { MAX_SYMBOLS, WATCHLIST_NAME, parse } from "../../src/ast/lower.js";
import type { Expression } from "../../src/ast/nodes.js";
import { printExpression, printQuery } from "../../src/ast/print.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
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
    expect([...kinds].sort()).toEqual(["columns", "condition", "let", "limit", "market", "sort", "symbols", "timeframeSetting", "watchlist"]);
    expect(samples[0]!.ast.span).toEqual({ start: 0, end: 0 });
    for (const { text } of samples) expect(validate(text, { markets: ["NYSE"] })).toEqual({ valid: true });
  });
});

describe("arbitraryQuery's lists", () => {
  const listOf = (ast: { statements: readonly { kind: string }[] }) => ast.statements.filter((s) => s.kind === "symbols" || s.kind === "watchlist");

  it("screens a list sometimes, never two: distinct symbols the grammar takes (escapes included, up to 1,000) or a well-formed list name", () => {
    const samples = fc.sample(arbitraryQuery(), { numRuns: 600, seed: 11 });
    let symbols = 0;
    let watchlists = 0;
    let escaped = 0;
    let largest = 0;
    for (const { text, ast } of samples) {
      const lists = listOf(ast);
      expect(lists.length).toBeLessThanOrEqual(1);
      for (const list of ast.statements) {
        if (list.kind === "symbols") {
          symbols++;
          expect(new Set(list.symbols).size).toBe(list.symbols.length);
          expect(list.symbols.length).toBeGreaterThanOrEqual(1);
          expect(list.symbols.length).toBeLessThanOrEqual(MAX_SYMBOLS);
          largest = Math.max(largest, list.symbols.length);
          if (list.symbols.some((symbol) => /["\\]/.test(symbol))) escaped++;
        } else if (list.kind === "watchlist") {
          watchlists++;
          expect(list.name).toMatch(WATCHLIST_NAME);
        }
      }
      // The text parses back to the same list, escapes resolved.
      expect(listOf(stripSpans(parse(text)))).toEqual(listOf(stripSpans(ast)));
    }
    // Sometimes, not always: most queries screen the whole market.
    expect(symbols).toBeGreaterThan(60);
    expect(watchlists).toBeGreaterThan(60);
    expect(symbols + watchlists).toBeLessThan(samples.length / 2);
    expect(escaped).toBeGreaterThan(0);
    expect(largest).toBe(MAX_SYMBOLS);
  });

  it("draws from the symbols and list names given, validating with those lists as the watchlists option; empty pools leave the settings out", () => {
    const lists = { majors: ["EURUSD", "GBPUSD"], empty_ish: ["NOPE"] };
    fc.assert(
      fc.property(arbitraryQuery({ symbols: ["EURUSD", "GBPUSD", "NOPE"], watchlists: Object.keys(lists) }), ({ text, ast }) => {
        expect(validate(text, { watchlists: lists })).toEqual({ valid: true });
        for (const s of ast.statements) {
          if (s.kind === "symbols") for (const symbol of s.symbols) expect(["EURUSD", "GBPUSD", "NOPE"]).toContain(symbol);
          if (s.kind === "watchlist") expect(Object.keys(lists)).toContain(s.name);
        }
      }),
      { numRuns: 200 },
    );
    for (const { ast } of fc.sample(arbitraryQuery({ symbols: [], watchlists: [] }), { numRuns: 200, seed: 3 })) expect(listOf(ast)).toEqual([]);
    // A generated name is unknown to lists that lack it: the plan error a run would give.
    const named = fc.sample(arbitraryQuery({ symbols: [] }), { numRuns: 200, seed: 5 }).find(({ ast }) => listOf(ast).length > 0)!;
    expect(validate(named.text, { watchlists: {} })).toMatchObject({ valid: false, error: { type: "plan", message: expect.stringMatching(/^Unknown watchlist '/) } });
  });

  it("runs over a universe with its lists given: a list's screen is the whole market's filtered to it, then limited", () => {
    const universe = syntheticUniverse({ market: "FOREX", symbols: 6, timeframes: ["h1", "h4", "d", "w"], bars: 120 });
    const names = universe.map((i) => i.symbol);
    const lists = { firsts: names.slice(0, 2), lasts: [...names.slice(4), "NOPE"] };
    fc.assert(
      fc.property(arbitraryQuery({ markets: ["FOREX"], maxDepth: 2, symbols: [...names, "NOPE"], watchlists: Object.keys(lists) }), ({ text, ast }) => {
        let q;
        try {
          q = compile(text, { watchlists: lists });
        } catch {
          return; // a plan error (a lookback over the ceiling): not a list's doing
        }
        const listed = ast.statements.flatMap((s) => (s.kind === "symbols" ? [s.symbols] : s.kind === "watchlist" ? [lists[s.name as keyof typeof lists]] : []))[0];
        expect(q.symbols).toEqual(listed);
        // The whole market's screen, without the list and the limit: filtered to the list, then cut to the limit, in its order.
        const whole = compile(printQueryWithout(ast)).run(universe).results;
        const limit = ast.statements.find((s) => s.kind === "limit")?.value ?? Infinity;
        const expected = (listed === undefined ? whole : whole.filter((r) => listed.includes(r.symbol))).slice(0, limit);
        expect(q.run(universe).results).toEqual(expected);
      }),
      { numRuns: 60, seed: 20261206 },
    );
  });
});

/** The query without its list setting and its limit: the whole market's screen, every match. */
function printQueryWithout(ast: Parameters<typeof printQuery>[0]): string {
  return printQuery({ ...ast, statements: ast.statements.filter((s) => s.kind !== "symbols" && s.kind !== "watchlist" && s.kind !== "limit") });
}

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
