/**
 * Zero-parameter built-ins are bare names (decisions §1 "Functions v2"): `obv`, not `obv()`.
 * The machinery is checked with a fixture module added to the real list (`zp_range`, the bar's
 * high − low), so it does not depend on which v2 modules exist; every real zero-parameter
 * module is checked the same way below.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { FunctionModule } from "../../src/functions/module.js";

const zpRange: FunctionModule = {
  name: "zp_range",
  params: [],
  result: "number",
  implicit: ["high", "low"],
  extraLookback: () => 0,
  lookbackDoc: "1",
  recursive: false,
  kernel: (inputs, _consts, out, from, to) => {
    const high = inputs[0]!;
    const low = inputs[1]!;
    for (let i = from; i < to; i++) out[i] = high[i]! - low[i]!;
  },
  doc: "Test fixture: the bar's range.",
  example: "zp_range > 0",
  phrases: [{ phrase: "test fixture range", query: "zp_range > 0", notes: "A fixture for the zero-parameter tests." }],
};

vi.mock("../../src/functions/builtins/index.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/functions/builtins/index.js")>();
  return { MODULES: [...original.MODULES, zpRange] };
});

const { compile, validate, syntheticUniverse } = await import("../../src/index.js");
const { FUNCTIONS } = await import("../../src/functions/registry.js");
const { parse } = await import("../../src/ast/lower.js");
const { printQuery } = await import("../../src/ast/print.js");
const { arbitraryExpression } = await import("../../src/testing/index.js");

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';
const ZERO = [...FUNCTIONS.values()].filter((f) => f.params.length === 0);

describe("zero-parameter built-ins", () => {
  it("the fixture is registered", () => {
    expect(ZERO.map((f) => f.name)).toContain("zp_range");
  });

  it.each(ZERO.map((f) => [f.name, f] as const))("%s: the bare name is a call", (name, fn) => {
    expect(validate(HEADER + fn.example)).toEqual({ valid: true });
    // A boolean built-in (a candlestick pattern) is a condition itself; a number one is compared.
    const condition = fn.result === "boolean" ? `${name} or not ${name}` : `${name} == ${name}`;
    expect(validate(`${HEADER}columns = [${name}]\n${condition}`)).toEqual({ valid: true });
  });

  it.each(ZERO.map((f) => [f.name, f] as const))("%s: parentheses are an error at the name", (name, fn) => {
    const body = `close > 0 and ${name}() ${fn.result === "number" ? "> 0" : ""}`;
    const result = validate(HEADER + body);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.error.type).toBe("syntax");
    expect(result.error.message).toBe(`'${name}' takes no arguments and is written without parentheses, as in ${fn.example}`);
    expect(result.error.position!.offset).toBe(HEADER.length + body.indexOf(name));
  });

  it.each(ZERO.map((f) => [f.name] as const))("%s: cannot be redefined by let", (name) => {
    const result = validate(`${HEADER}let ${name} = 1\nclose > 0`);
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.error.message).toBe(`'${name}' is a built-in function and cannot be redefined by let`);
  });

  it("plans L = 1 + extraLookback with the implicit columns, and evaluates over the bars", () => {
    const q = compile(`${HEADER}columns = [zp_range, zp_range[2]]\nzp_range > 0`);
    expect(q.plan.sources).toEqual([{ timeframe: "h1", series: ["high", "low"], minLookback: 3 }]);
    const universe = syntheticUniverse({ market: "FOREX", symbols: 3, timeframes: ["h1"], bars: 50, seed: 7 });
    const rows = q.run(universe).results;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const bars = universe.find((i) => i.symbol === row.symbol)!.bars.h1!;
      const n = bars.close.length;
      expect(row.columns["zp_range"]).toBe(Number(bars.high[n - 1]) - Number(bars.low[n - 1]));
      expect(row.columns["zp_range[2]"]).toBe(Number(bars.high[n - 3]) - Number(bars.low[n - 3]));
    }
  });

  it("prints as a bare name and parses back", () => {
    const text = `${HEADER}zp_range > 1`;
    expect(printQuery(parse(text))).toContain("zp_range > 1");
  });

  it("random expressions use the bare name, and every one validates", () => {
    let seen = 0;
    fc.assert(
      fc.property(arbitraryExpression({ type: "boolean", maxDepth: 3, timeframe: "h1" }), (e) => {
        const { printExpression } = printer;
        const text = printExpression(e);
        if (/\bzp_range\b/.test(text)) seen++;
        expect(text).not.toMatch(/zp_range\s*\(/);
        expect(validate(HEADER + text)).toEqual({ valid: true });
      }),
      { numRuns: 400, seed: 11 },
    );
    expect(seen).toBeGreaterThan(0);
  });
});

const printer = await import("../../src/ast/print.js");
