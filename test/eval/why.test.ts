/**
 * Why (decisions §11) in the library: for random queries and bars, the tree's root is the
 * condition's truth, i.e. membership in run's results at that bar (no limit); each comparison's
 * operands equal the same expressions as run columns (Object.is); and/or/not combine their
 * children's values; `at` an earlier bar gives history's answer there.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, validate } from "../../src/api.js";
import { printExpression } from "../../src/ast/print.js";
import type { WhyNode } from "../../src/eval/why.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { arbitraryExpression } from "../../src/testing/index.js";

const HEADER = 'market = "CRYPTO"\ntimeframe = h1\n';
const universe = syntheticUniverse({ market: "CRYPTO", symbols: 4, timeframes: ["h1", "h4"], bars: 700, seed: 3 });

const COMPARISON = /^(<|<=|>|>=|==|!=)$/;

/** Every node of the tree, depth first. */
function nodes(tree: WhyNode): WhyNode[] {
  const out: WhyNode[] = [];
  const stack = [tree];
  while (stack.length > 0) {
    const n = stack.pop()!;
    out.push(n);
    stack.push(...(n.children ?? []));
  }
  return out;
}

/** The value a run column reports for a tree value (booleans 1/0, undefined null). */
const asColumn = (v: number | boolean | null): number | null => (v === null ? null : typeof v === "boolean" ? (v ? 1 : 0) : v);

const queries = fc
  .record({
    condition: arbitraryExpression({ type: "boolean", timeframe: "h1", maxDepth: 3 }),
    let: arbitraryExpression({ type: "number", timeframe: "h1", maxDepth: 2 }),
  })
  .map(({ condition, let: bound }) => `${HEADER}let v = ${printExpression(bound)};\n${printExpression(condition)} or v > 0 and not (v < 0)`)
  .filter((q) => validate(q).valid);

describe("compile(q).why", () => {
  it("agrees with run and history, part by part", () => {
    let compared = 0;
    fc.assert(
      fc.property(queries, fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 30 }), (query, pick, ago) => {
        const compiled = compile(query);
        const instrument = universe[pick]!;
        const times = instrument.bars.h1!.time;
        const t = times[times.length - 1 - ago]!;
        const why = compiled.why(instrument, { at: ago === 0 ? undefined : new Date(t).toISOString() });
        expect(why.time).toBe(t);
        // The root: the condition at t, as history (or run, at the latest bar) decides it.
        const members = ago === 0 ? compiled.run([instrument]).results.map(() => t) : compiled.history([instrument], { bars: ago + 1 }).matches.map((m) => m.time);
        expect(why.matched).toBe(members.includes(t));
        expect(why.tree.value === true).toBe(why.matched);
        // Each part's value is the same expression's run column at t.
        const parts = nodes(why.tree).filter((n) => n.expr !== "true" && n.expr !== "false");
        const columnsQuery = compile(`${HEADER}let v = ${query.split("let v = ")[1]!.split(";\n")[0]};\ncolumns = [${[...new Set(parts.map((n) => n.expr))].join(", ")}]\ntrue`);
        const row = ago === 0 ? columnsQuery.run([instrument]).results[0] : columnsQuery.history([instrument], { bars: ago + 1 }).matches.find((m) => m.time === t);
        for (const n of parts) {
          if (row) expect(Object.is(asColumn(n.value), row.columns[n.expr]), n.expr).toBe(true);
          const kids = n.children ?? [];
          const op = / (and|or) /.exec(n.expr);
          if (kids.length >= 2 && op && kids.every((k) => typeof k.value === "boolean")) {
            if (n.expr.split(" ").includes("or") && !n.expr.includes("(")) expect(n.value).toBe(kids.some((k) => k.value === true));
          }
          if (n.expr.startsWith("not ") && kids.length === 1 && typeof kids[0]!.value === "boolean") expect(n.value).toBe(!kids[0]!.value);
          if (kids.length === 2 && COMPARISON.test(n.expr.split(" ").find((w) => COMPARISON.test(w)) ?? "")) compared++;
        }
      }),
      { numRuns: 40 },
    );
    expect(compared).toBeGreaterThan(10);
  });

  it("shows the bar a cross-timeframe part or an offset read, lets with their definitions", () => {
    const q = compile(`${HEADER}let m = sma(close, 20)\nclose > m and h4::close[1] > 0 and close[3] > 0`);
    const instrument = universe[0]!;
    const why = q.why(instrument);
    const h1 = instrument.bars.h1!.time;
    const last = h1[h1.length - 1]!;
    const [first, second, third] = why.tree.children!;
    expect(first!.children![1]).toMatchObject({ expr: "m", children: [{ expr: "sma(close, 20)" }] });
    expect(first!.children![1]!.value).toBe(first!.children![1]!.children![0]!.value);
    const h4 = instrument.bars.h4!.time;
    // The h4 bar closed by the h1 bar's close, then one earlier.
    const closed = Array.from(h4).filter((open) => open + 4 * 3_600_000 <= last + 3_600_000).length - 1;
    expect(second!.children![0]).toMatchObject({ expr: "h4::close[1]", time: h4[closed - 1] });
    expect(third!.children![0]).toMatchObject({ expr: "close[3]", time: h1[h1.length - 4] });
    expect(why.tree.value).toBe(why.matched);
  });

  it("says a part is undefined during warm-up, and refuses a time before the first bar", () => {
    const q = compile(`${HEADER}columns = [sma(close, 50)]\nsma(close, 50) > 0`);
    const instrument = universe[1]!;
    const h1 = instrument.bars.h1!.time;
    const early = q.why(instrument, { at: h1[10]! });
    // Too few bars for the source (a run skips it as short history): every part is undefined.
    expect(early.matched).toBe(false);
    expect(early.tree.value).toBeNull();
    expect(early.tree.children![0]!.value).toBeNull();
    expect(early.columns).toEqual({ "sma(close, 50)": null });
    expect(() => q.why(instrument, { at: h1[0]! - 1 })).toThrow(`No bars for ${instrument.symbol} on CRYPTO h1`);
  });
});
