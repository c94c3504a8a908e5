/**
 * Every module is complete, with no per-function code here: it lives in its own file and has a
 * test file beside the others, its example validates and uses it, it has at least one phrase and
 * each validates, its warm-up is a count of bars, and its parameters follow the rules the checker
 * and generators rely on. A module lacking any of these fails here by name.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validate } from "../../src/api.js";
import { MODULES } from "../../src/functions/builtins/index.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import type { FunctionModule } from "../../src/functions/module.js";
import { PHRASES } from "../../src/phrases/index.js";
import { declaredTaLib, evaluateLookbackDoc } from "./module-docs.js";

const root = new URL("../../", import.meta.url);

/** The functions the TA-Lib fixtures (test/reference/fixtures, written by scripts/reference/) hold cases of. */
const FIXTURE_FUNCTIONS = new Set(
  readdirSync(new URL("test/reference/fixtures/", root))
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => (JSON.parse(readFileSync(join(new URL("test/reference/fixtures/", root).pathname, f), "utf8")) as { cases: { function: string }[] }).cases)
    .map((c) => c.function),
);

/** Constant sets a lookback is read at: every length alike, lengths that differ, all 1. */
function constSets(m: FunctionModule): { consts: number[]; byName: Record<string, number> }[] {
  const sets = [[14, 14, 14, 14], [7, 3, 12, 5], [1, 1, 1, 1], [20, 9, 2, 30]];
  return sets.map((lengths) => {
    let nth = 0;
    const byName: Record<string, number> = {};
    const consts: number[] = [];
    for (const p of m.params) {
      if (p.kind !== "length" && p.kind !== "number") continue;
      const v = p.kind === "length" ? Math.min(lengths[nth++ % lengths.length]!, p.max ?? Infinity) : (p.samples?.[0] ?? 2);
      byName[p.name] = v;
      consts.push(v);
    }
    return { consts, byName };
  });
}
const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';
/** The name used as written: a bare name for a zero-parameter built-in, a call otherwise. */
const useOf = (name: string, bare: boolean): RegExp => new RegExp(bare ? `\\b${name}\\b(?!\\s*\\()` : `\\b${name}\\s*\\(`);

describe("reading a module's docs", () => {
  it("reads lookbackDoc as arithmetic", () => {
    const at = (doc: string, consts: Record<string, number>, lookbacks: Record<string, number> = {}): number => evaluateLookbackDoc(doc, { consts, lookbacks });
    expect(at("L(src) + n − 1", { n: 20 }, { src: 3 })).toBe(22);
    expect(at("max(L(a), L(b)) + 1", {}, { a: 4, b: 9 })).toBe(10);
    expect(at("L(src) + n + ⌊√n⌋ − 2", { n: 16 }, { src: 1 })).toBe(19);
    expect(at("L(src) + 3n − 3", { n: 5 }, { src: 1 })).toBe(13);
    expect(at("max(conv, base) + disp − 1", { conv: 9, base: 26, disp: 26 })).toBe(51);
    expect(() => at("L(src) + m", { n: 1 }, { src: 1 })).toThrow("'m' is no parameter");
  });

  it("catches a lookbackDoc that disagrees with extraLookback", () => {
    const sma = MODULES.find((m) => m.name === "sma")!;
    // The true doc is L(src) + n − 1; a doc of L(src) + n would promise one bar too many.
    expect(evaluateLookbackDoc(sma.lookbackDoc, { consts: { n: 20 }, lookbacks: { src: 1 } })).toBe(1 + sma.extraLookback([20]));
    expect(evaluateLookbackDoc("L(src) + n", { consts: { n: 20 }, lookbacks: { src: 1 } })).not.toBe(1 + sma.extraLookback([20]));
  });

  it("finds the TA-Lib function a reference declares, not one it disowns", () => {
    expect(declaredTaLib("Wilder (1978); TA-Lib RSI; TradingView ta.rsi")).toBe("RSI");
    expect(declaredTaLib("TA-Lib SMA (the same function as sma)")).toBe("SMA");
    expect(declaredTaLib("Chande (Achelis); TradingView ta.cmo. Not TA-Lib CMO, which smooths the sums")).toBeUndefined();
    expect(declaredTaLib("TradingView ta.hma")).toBeUndefined();
    expect(declaredTaLib(undefined)).toBeUndefined();
  });
});

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

  it("documents its lookback truly: lookbackDoc read as arithmetic is max(L(inputs)) + extraLookback", () => {
    const inputs = m.params.filter((p) => p.kind === "series" || p.kind === "condition");
    for (const { consts, byName } of constSets(m)) {
      for (const ls of [inputs.map(() => 1), inputs.map((_, i) => 3 + 4 * i)]) {
        const lookbacks = Object.fromEntries(inputs.map((p, i) => [p.name, ls[i]!]));
        // An implicit column is an input with L = 1; a call with no input at all has L = 1 + extraLookback.
        const base = Math.max(...ls, m.implicit.length > 0 || inputs.length === 0 ? 1 : -Infinity);
        const documented = evaluateLookbackDoc(m.lookbackDoc, { consts: byName, lookbacks });
        expect(documented, `${m.lookbackDoc} at ${JSON.stringify({ ...byName, ...Object.fromEntries(inputs.map((p, i) => [`L(${p.name})`, ls[i]])) })}`).toBe(
          base + m.extraLookback(consts),
        );
      }
    }
  });

  it("has TA-Lib fixtures when its reference declares TA-Lib", () => {
    const talib = declaredTaLib(m.reference);
    if (talib === undefined) return;
    expect(FIXTURE_FUNCTIONS.has(name), `${name} declares TA-Lib ${talib}: add its cases to scripts/reference/generate.py and run npm run gen -- --reference (docs/functions.md, "Add a built-in", step 5)`).toBe(true);
  });

});
