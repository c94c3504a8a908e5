/**
 * The golden corpus (./corpus.ts): every case snapshotted at every stage, compared with
 * test/golden/expected/*.json. A missing snapshot fails: only
 *
 *   UPDATE_GOLDEN=1 npx vitest run test/golden   rewrites the expected files (review the diff),
 *
 * and `npm run gen` writes the first snapshot of a new module.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { compile, explain, validate } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import type { Expression, Query } from "../../src/ast/nodes.js";
import { printQuery } from "../../src/ast/print.js";
import { ERROR_CATALOGUE, XqlError } from "../../src/errors.js";
import { FUNCTIONS, SERIES } from "../../src/functions/registry.js";
import type { XqlOptions } from "../../src/types.js";
import { expectErrorShape } from "../syntax/positions.js";
import { EXPECTED, groups, snapshot, textOf, type Snapshot } from "./corpus.js";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
const CATALOGUE = ERROR_CATALOGUE;

function compileOrThrow(query: string, options?: XqlOptions): void {
  compile(query, options);
}

function expressions(q: Query): Expression[] {
  const roots: Expression[] = [];
  for (const s of q.statements) {
    if (s.kind === "let" || s.kind === "condition") roots.push(s.expression);
    else if (s.kind === "columns") roots.push(...s.columns.map((c) => c.expression));
    else if (s.kind === "sort") roots.push(...s.keys.map((k) => k.expression));
  }
  const all: Expression[] = [];
  while (roots.length > 0) {
    const e = roots.pop()!;
    all.push(e);
    if (e.kind === "call") roots.push(...e.args);
    else if (e.kind === "unary") roots.push(e.operand);
    else if (e.kind === "binary") roots.push(e.left, e.right);
    else if (e.kind === "timeframe" || e.kind === "history") roots.push(e.expression);
  }
  return all;
}

describe.each(groups)("golden $group", ({ group, cases }) => {
  const file = `${EXPECTED}${group}.json`;
  const actual = cases.map(snapshot);

  it("matches test/golden/expected (UPDATE_GOLDEN=1 rewrites it)", () => {
    if (UPDATE) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
    }
    if (!existsSync(file)) {
      expect.fail(`test/golden/expected/${group}.json is missing: write it with UPDATE_GOLDEN=1 npx vitest run test/golden (or npm run gen for a new module) and review it`);
    }
    const expected = JSON.parse(readFileSync(file, "utf8")) as Snapshot[];
    expect(actual).toEqual(expected);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const query = textOf(c);
    const result = validate(query, c.options);
    if (c.kind === undefined) {
      expect(result).toEqual({ valid: true });
      // Every stage round-trips: the printed AST parses to itself and plans the same.
      const printed = printQuery(parse(query));
      expect(printQuery(parse(printed))).toBe(printed);
      expect(explain(printed, c.options)).toEqual(explain(query, c.options));
      return;
    }
    const error = expectErrorShape(query, result);
    const kind = CATALOGUE.find((k) => k.code === c.kind);
    expect(kind, `unknown kind ${c.kind}`).toBeDefined();
    expect(error.type).toBe(kind!.type);
    // The code XqlError carries is the case's kind: the message matches that entry and no earlier one.
    let thrown: unknown;
    try {
      compileOrThrow(query, c.options);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(XqlError);
    expect((thrown as XqlError).code).toBe(c.kind);
    expect((thrown as XqlError).body).toEqual(error);
    const snap = snapshot(c) as { stage: string };
    expect(kind!.stages).toContain(snap.stage);
  });
});

describe("golden coverage", () => {
  const all = groups.flatMap((g) => g.cases);
  const valid = all.filter((c) => c.kind === undefined).map((c) => parse(textOf(c)));

  it("covers every statement", () => {
    const kinds = new Set(valid.flatMap((q) => q.statements.map((s) => s.kind)));
    expect([...kinds].sort()).toEqual(["columns", "condition", "let", "limit", "market", "sort", "symbols", "timeframeSetting", "watchlist"]);
  });

  it("covers every function of the registry, with and without its optional source", () => {
    const calls = valid.flatMap(expressions).filter((e) => e.kind === "call");
    const bare = new Set(valid.flatMap(expressions).flatMap((e) => (e.kind === "identifier" ? [e.name] : [])));
    for (const fn of FUNCTIONS.values()) {
      // A zero-parameter built-in is written as a bare name, which the AST keeps as an identifier.
      if (fn.params.length === 0) {
        expect(bare.has(fn.name), `${fn.name} written bare`).toBe(true);
        continue;
      }
      const arities = new Set(calls.filter((c) => c.callee === fn.name).map((c) => c.args.length));
      expect(arities.has(fn.params.length), `${fn.name} with every argument`).toBe(true);
      if (fn.params[0]?.default !== undefined) expect(arities.has(fn.params.length - 1), `${fn.name} without its source`).toBe(true);
    }
  });

  it("covers every series, every operator and every timeframe", () => {
    const nodes = valid.flatMap(expressions);
    const names = new Set(nodes.flatMap((e) => (e.kind === "identifier" ? [e.name] : [])));
    for (const s of SERIES.keys()) expect(names.has(s), s).toBe(true);
    const operators = new Set(nodes.flatMap((e) => (e.kind === "binary" || e.kind === "unary" ? [e.operator] : [])));
    expect([...operators].sort()).toEqual(["!=", "*", "+", "-", "/", "<", "<=", "==", ">", ">=", "and", "not", "or"].sort());
    const prefixes = new Set(nodes.flatMap((e) => (e.kind === "timeframe" ? [e.timeframe] : [])));
    expect([...prefixes].sort()).toEqual(["d", "h1", "h4", "m1", "m15", "m30", "m5", "w"]);
    expect(nodes.some((e) => e.kind === "history")).toBe(true);
  });

  it("covers every error kind of the catalogue", () => {
    const covered = new Set(all.flatMap((c) => (c.kind ? [c.kind] : [])));
    // Kinds no query text can give (a non-string query, the stack guard) are tested in test/api;
    // the zero-parameter call needs a zero-parameter built-in, whose module cases give it.
    // History's price and an answer's 16 MiB bound come from the window and the bars, not the
    // text: test/plan/cost.test.ts, test/eval/json-size.test.ts, test/server/fair-use.test.ts.
    // A missing watchlist depends on the lists the caller has, not the text: test/api/symbols.test.ts.
    const untestable = new Set(["query-not-string", "query-too-complex", "history-cost", "response-too-large", "unknown-watchlist"]);
    if (![...FUNCTIONS.values()].some((f) => f.params.length === 0)) untestable.add("call-of-zero-parameter");
    expect(CATALOGUE.map((k) => k.code).filter((code) => !covered.has(code) && !untestable.has(code))).toEqual([]);
  });

  it("documents every error kind in docs/errors.md", () => {
    const docs = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    expect(CATALOGUE.map((k) => k.code).filter((code) => !docs.includes(`\`${code}\``))).toEqual([]);
  });
});
