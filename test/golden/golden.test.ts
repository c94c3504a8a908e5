/**
 * The golden corpus: every query of test/golden/cases/*.json snapshotted at every stage (the
 * canonical AST text from printQuery, the plan, the explanation) or as its error (the 400 body
 * and the stage that raised it), compared with test/golden/expected/*.json.
 *
 * UPDATE_GOLDEN=1 npx vitest run test/golden   rewrites the expected files; review the diff.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { explain, validate } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import type { Expression, Query } from "../../src/ast/nodes.js";
import { printQuery } from "../../src/ast/print.js";
import { check } from "../../src/check/check.js";
import { XqlError } from "../../src/errors.js";
import { FUNCTIONS, SERIES, type FunctionSpec } from "../../src/functions/registry.js";
import { DEFAULT_MARKETS, type XqlOptions } from "../../src/types.js";
import { expectErrorShape } from "../syntax/positions.js";
import { ERROR_KINDS } from "./error-kinds.js";

const CASES = fileURLToPath(new URL("./cases/", import.meta.url));
const EXPECTED = fileURLToPath(new URL("./expected/", import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === "1";

interface Case {
  name: string;
  /** The query text, or its lines (joined with "\n"). */
  query: string | string[];
  options?: XqlOptions;
  /** Set on cases that must fail: the id of the error kind (see error-kinds.ts). */
  kind?: string;
}

type Snapshot =
  | { name: string; query: string; ast: string; plan: unknown; explanation: string }
  | { name: string; query: string; kind: string; stage: string; error: unknown };

const textOf = (c: Case): string => (Array.isArray(c.query) ? c.query.join("\n") : c.query);

/** Runs the stages one by one, so a failure names the stage that raised it. */
function snapshot(c: Case): Snapshot {
  const query = textOf(c);
  const result = explain(query, c.options);
  if ("valid" in result) {
    let stage = "?";
    try {
      check(parse(query), query, c.options?.markets ?? DEFAULT_MARKETS);
      stage = "plan";
    } catch (error) {
      stage = (error as XqlError).stage;
    }
    return { name: c.name, query, kind: c.kind ?? "(none: this case should be valid)", stage, error: result.error };
  }
  return { name: c.name, query, ast: printQuery(parse(query)), plan: result.plan, explanation: result.explanation };
}

const handGroups = readdirSync(CASES)
  .filter((f) => f.endsWith(".json"))
  .map((file) => ({ group: file.replace(/\.json$/, ""), cases: JSON.parse(readFileSync(CASES + file, "utf8")) as Case[] }));

/**
 * One group per built-in module, made from the module itself (so a new module is covered with
 * no hand-written case): its example, and a call with every argument (and, where the source
 * may be left out, without it) as columns. Expected snapshots live in expected/modules/.
 */
const LENGTHS = [5, 10, 3, 7, 4, 6];
function callOf(fn: FunctionSpec, withSource: boolean): string {
  if (fn.params.length === 0) return fn.name;
  let nth = 0;
  const params = withSource ? fn.params : fn.params.slice(1);
  const args = params.map((p) => {
    switch (p.kind) {
      case "series":
        return p.default ?? "close";
      case "condition":
        return "close > open";
      case "length":
        return String(Math.min(LENGTHS[nth++ % LENGTHS.length]!, p.max ?? Infinity));
      case "number":
        return String(p.samples?.[0] ?? 2);
    }
  });
  return `${fn.name}(${args.join(", ")})`;
}
const moduleGroups = [...FUNCTIONS.values()].map((fn) => {
  const calls = [callOf(fn, true), ...(fn.params[0]?.default !== undefined ? [callOf(fn, false)] : [])];
  const query = ['market = "FOREX"', "timeframe = h1", `columns = [${calls.join(", ")}]`, fn.example];
  return { group: `modules/${fn.name}`, cases: [{ name: `${fn.name}: example and every form of call`, query }] as Case[] };
});

const groups = [...handGroups, ...moduleGroups];

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
    if (UPDATE || !existsSync(file)) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
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
    const kind = ERROR_KINDS.find((k) => k.id === c.kind);
    expect(kind, `unknown kind ${c.kind}`).toBeDefined();
    expect(error.type).toBe(kind!.type);
    expect(error.message).toMatch(kind!.message);
    const snap = snapshot(c) as { stage: string };
    expect(kind!.stages).toContain(snap.stage);
  });
});

describe("golden coverage", () => {
  const all = groups.flatMap((g) => g.cases);
  const valid = all.filter((c) => c.kind === undefined).map((c) => parse(textOf(c)));

  it("covers every statement", () => {
    const kinds = new Set(valid.flatMap((q) => q.statements.map((s) => s.kind)));
    expect([...kinds].sort()).toEqual(["columns", "condition", "let", "limit", "market", "sort", "timeframeSetting"]);
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

  it("covers every error kind", () => {
    const covered = new Set(all.flatMap((c) => (c.kind ? [c.kind] : [])));
    expect(ERROR_KINDS.map((k) => k.id).filter((id) => !covered.has(id))).toEqual([]);
  });

  it("documents every error kind in docs/errors.md", () => {
    const docs = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    expect(ERROR_KINDS.map((k) => k.id).filter((id) => !docs.includes(`\`${id}\``))).toEqual([]);
  });
});
