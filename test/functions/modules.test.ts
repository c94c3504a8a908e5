/**
 * Every module is complete, with no per-function code here: it lives in its own file and has a
 * test file beside the others, its example validates and uses it, it has at least one phrase and
 * each validates, its warm-up is a count of bars, and its parameters follow the rules the checker
 * and generators rely on. A module lacking any of these fails here by name.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validate } from "../../src/api.js";
import { MODULES } from "../../src/functions/builtins/index.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { PHRASES } from "../../src/phrases/index.js";

const root = new URL("../../", import.meta.url);
const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';
/** The name used as written: a bare name for a zero-parameter built-in, a call otherwise. */
const useOf = (name: string, bare: boolean): RegExp => new RegExp(bare ? `\\b${name}\\b(?!\\s*\\()` : `\\b${name}\\s*\\(`);

describe("the module list", () => {
  it("is the registry, with unique names", () => {
    expect([...FUNCTIONS.keys()]).toEqual(MODULES.map((m) => m.name));
    expect(new Set(MODULES.map((m) => m.name)).size).toBe(MODULES.length);
  });

  it("lists every module file of src/functions/builtins/ (a file that exports a FunctionModule)", () => {
    const dir = new URL("src/functions/builtins/", root);
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "index.ts" && /:\s*FunctionModule\s*=/.test(readFileSync(new URL(f, dir), "utf8")));
    const listed = new Set(MODULES.map((m) => m.name));
    expect(files.map((f) => f.replace(/\.ts$/, "")).filter((n) => !listed.has(n))).toEqual([]);
  });
});

describe.each(MODULES.map((m) => [m.name, m] as const))("%s", (name, m) => {
  const bare = m.params.length === 0;

  it("lives in src/functions/builtins/<name>.ts and has test/functions/builtins/<name>.test.ts", () => {
    const source = new URL(`src/functions/builtins/${name}.ts`, root);
    expect(existsSync(source), `src/functions/builtins/${name}.ts`).toBe(true);
    expect(readFileSync(source, "utf8")).toMatch(new RegExp(`export const ${name}\\b`));
    expect(existsSync(new URL(`test/functions/builtins/${name}.test.ts`, root)), `test/functions/builtins/${name}.test.ts`).toBe(true);
  });

  it("has a name the lexer reads, a one-line doc, a lookback doc and a condition as example that uses it", () => {
    expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(m.doc.length).toBeGreaterThan(10);
    expect(m.doc).not.toContain("\n");
    expect(m.lookbackDoc.length).toBeGreaterThan(0);
    expect(validate(HEADER + m.example), m.example).toEqual({ valid: true });
    expect(m.example).toMatch(useOf(name, bare));
  });

  it("has at least one phrase; each validates after market and timeframe, with notes, and is in the reference", () => {
    expect(m.phrases.length).toBeGreaterThan(0);
    expect(m.phrases.some((p) => useOf(name, bare).test(p.query)), "a phrase uses the function").toBe(true);
    for (const p of m.phrases) {
      expect(validate(HEADER + p.query), p.query).toEqual({ valid: true });
      expect(p.notes?.length ?? 0, p.phrase).toBeGreaterThan(10);
      expect(PHRASES.some((e) => e.phrase === p.phrase && e.query === p.query), p.phrase).toBe(true);
    }
  });

  it("has parameters the checker and generators can use", () => {
    const names = m.params.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    m.params.forEach((p, i) => {
      if (p.default !== undefined) {
        expect(i, "only the first parameter may have a default").toBe(0);
        expect(p.kind).toBe("series");
      }
      if (p.max !== undefined) expect(p.kind === "length" && Number.isInteger(p.max) && p.max >= 1).toBe(true);
      if (p.samples !== undefined) expect(p.kind === "number" && p.samples.length > 0).toBe(true);
    });
    for (const c of m.implicit) expect(["open", "high", "low", "close", "volume", "time"]).toContain(c);
  });

  it("has a warm-up only if recursive, a non-negative integer count of bars", () => {
    if (m.warmup === undefined) return;
    expect(m.recursive).toBe(true);
    const consts = m.params.flatMap((p) => (p.kind === "length" ? [14] : p.kind === "number" ? [p.samples?.[0] ?? 2] : []));
    for (const tf of [60_000, 3_600_000, 86_400_000]) {
      const w = m.warmup(consts, tf);
      expect(Number.isInteger(w) && w >= 0, `warmup ${w}`).toBe(true);
    }
  });
});
