/**
 * The golden corpus: the hand-written cases of test/golden/cases/*.json, and one group per
 * built-in module made from the module itself, each case snapshotted at every stage (the
 * canonical AST text from printQuery, the plan, the explanation) or as its error (the 400
 * body and the stage that raised it). test/golden/golden.test.ts compares the snapshots with
 * test/golden/expected/; `npm run gen` writes the snapshot of a module that has none yet.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { explain } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import { printQuery } from "../../src/ast/print.js";
import { check } from "../../src/check/check.js";
import type { XqlError } from "../../src/errors.js";
import { FUNCTIONS, type FunctionSpec } from "../../src/functions/registry.js";
import { DEFAULT_MARKETS, type XqlOptions } from "../../src/types.js";

export const CASES = fileURLToPath(new URL("./cases/", import.meta.url));
export const EXPECTED = fileURLToPath(new URL("./expected/", import.meta.url));

export interface Case {
  name: string;
  /** The query text, or its lines (joined with "\n"). */
  query: string | string[];
  options?: XqlOptions;
  /** Set on cases that must fail: the code of the error kind (ERROR_CATALOGUE in src/errors.ts). */
  kind?: string;
}

export type Snapshot =
  | { name: string; query: string; ast: string; plan: unknown; explanation: string }
  | { name: string; query: string; kind: string; stage: string; error: unknown };

export const textOf = (c: Case): string => (Array.isArray(c.query) ? c.query.join("\n") : c.query);

/** Runs the stages one by one, so a failure names the stage that raised it. */
export function snapshot(c: Case): Snapshot {
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
  const cases: Case[] = [{ name: `${fn.name}: example and every form of call`, query }];
  // A zero-parameter built-in written with parentheses is an error at the name.
  if (fn.params.length === 0) {
    cases.push({ name: `${fn.name}(): written without parentheses`, query: ['market = "FOREX"', "timeframe = h1", `${fn.name}() ${fn.result === "number" ? "> 0" : ""}`.trim()], kind: "call-of-zero-parameter" });
  }
  return { group: `modules/${fn.name}`, cases };
});

export const groups = [...handGroups, ...moduleGroups];
