/**
 * Random queries against the reference (./reference.ts): fast-check builds expressions from
 * every function (the v1 set by the reference's own definitions, and every module of the
 * registry through `moduleCall`), operator, offset and a `d::` prefix, nested, and `run` must select the
 * reference's instruments in the reference's order with the reference's column values. This
 * exercises what fixed cases miss: slots shared between parts of a query and asked for
 * different bar ranges, short-circuit and/or over ranges, offsets inside and outside prefixes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FunctionModule } from "../../src/functions/module.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { compile } from "../../src/index.js";
import { MONDAY, multiTimeframe, symbolName } from "../kit/index.js";
import * as R from "./reference.js";
import type { Expr, RefQuery } from "./reference.js";

const length = fc.integer({ min: 2, max: 12 });

const NUMBER_MODULES = [...FUNCTIONS.values()].filter((f) => f.result === "number");
const BOOLEAN_MODULES = [...FUNCTIONS.values()].filter((f) => f.result === "boolean");

/**
 * A call of any module (every module of the registry, present and future), computed by the
 * reference through the module's own kernel over the whole history: series arguments from
 * `num`, condition arguments from `bool`, lengths 1–12 (capped by the parameter's max), numbers
 * from the parameter's samples; a defaulted source is sometimes left out.
 */
function moduleCalls(modules: readonly FunctionModule[], num: fc.Arbitrary<Expr>, bool: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> {
  return fc.constantFrom(...modules).chain((fn) => {
    const args = fn.params.flatMap((p) => (p.kind === "series" ? [num] : p.kind === "condition" ? [bool] : []));
    const consts = fn.params.flatMap((p) =>
      p.kind === "length"
        ? [fc.integer({ min: 1, max: Math.min(12, p.max ?? 12) })]
        : p.kind === "number"
          ? [fc.constantFrom(...(p.samples ?? [0.5, 1, 2, -1.5]))]
          : [],
    );
    const omit = fn.params[0]?.default !== undefined ? fc.boolean() : fc.constant(false);
    return fc
      .tuple(fc.tuple(...args), fc.tuple(...consts), omit)
      .map(([xs, ks, o]) => R.moduleCall(fn, o ? xs.slice(1) : xs, ks, o));
  });
}

const tree = fc.letrec<{ num: Expr; bool: Expr; numD: Expr; boolD: Expr }>((tie) => {
  const num = tie("num") as fc.Arbitrary<Expr>;
  const bool = tie("bool") as fc.Arbitrary<Expr>;
  const numD = tie("numD") as fc.Arbitrary<Expr>;
  const boolD = tie("boolD") as fc.Arbitrary<Expr>;
  const leaf = fc.oneof(
    fc.constantFrom(R.close, R.open, R.high, R.low, R.volume, R.hl2, R.hlc3, R.ohlc4),
    fc.integer({ min: 0, max: 200 }).map((v) => R.num(v)),
  );
  const numeric = (self: fc.Arbitrary<Expr>, selfBool: fc.Arbitrary<Expr>) =>
    fc.oneof(
      { depthSize: "xsmall", maxDepth: 4, withCrossShrink: true, depthIdentifier: "expr" },
      { arbitrary: leaf, weight: 4 },
      fc.tuple(self, length).map(([x, n]) => R.sma(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.ema(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.wma(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.rsi(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.highest(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.lowest(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.stdev(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.change(x, n)),
      fc.tuple(self, length).map(([x, n]) => R.roc(x, n)),
      fc.tuple(self, length, fc.constantFrom(1, 2, 0.5)).map(([x, n, k]) => R.bb_lower(x, n, k)),
      fc.tuple(self, length, length).map(([x, a, b]) => R.macd(x, a, b)),
      fc.tuple(self, length, length, length).map(([x, a, b, c]) => R.macd_signal(x, a, b, c)),
      length.map((n) => R.atr(n)),
      self.map((x) => R.abs(x)),
      self.map((x) => R.neg(x)),
      fc.tuple(self, fc.integer({ min: 0, max: 5 })).map(([x, k]) => R.ago(x, k)),
      fc.tuple(self, self).map(([a, b]) => R.min(a, b)),
      fc.tuple(self, self).map(([a, b]) => R.max(a, b)),
      fc.tuple(self, self, fc.constantFrom(R.add, R.sub, R.mul, R.div)).map(([a, b, op]) => op(a, b)),
      { arbitrary: moduleCalls(NUMBER_MODULES, self, selfBool), weight: 3 },
    );
  const boolean = (n: fc.Arbitrary<Expr>, self: fc.Arbitrary<Expr>) =>
    fc.oneof(
      { depthSize: "xsmall", maxDepth: 4, withCrossShrink: true, depthIdentifier: "expr" },
      { arbitrary: fc.tuple(n, n, fc.constantFrom(R.lt, R.le, R.gt, R.ge, R.ne)).map(([a, b, op]) => op(a, b)), weight: 4 },
      fc.tuple(n, n).map(([a, b]) => R.crossover(a, b)),
      fc.tuple(n, n).map(([a, b]) => R.crossunder(a, b)),
      fc.array(self, { minLength: 2, maxLength: 3 }).map((xs) => R.and(...xs)),
      fc.array(self, { minLength: 2, maxLength: 3 }).map((xs) => R.or(...xs)),
      self.map((x) => R.not(x)),
      fc.tuple(self, fc.integer({ min: 1, max: 4 })).map(([x, k]) => R.ago(x, k)),
      moduleCalls(BOOLEAN_MODULES, n, self),
    );
  return {
    num: fc.oneof({ arbitrary: numeric(num, bool), weight: 5 }, { arbitrary: numD.map((x) => R.on("d", x)), weight: 1 }),
    bool: fc.oneof({ arbitrary: boolean(num, bool), weight: 5 }, { arbitrary: boolD.map((x) => R.on("d", x)), weight: 1 }),
    numD: numeric(numD, boolD),
    boolD: boolean(numD, boolD),
  };
});

// Up to 50 days of h1 bars, so nested d:: indicators have their lookback; some instruments short.
const universe = Array.from({ length: 8 }, (_, i) =>
  multiTimeframe(symbolName(i), 900 + i, "h1", [1200, 1200, 900, 600, 150, 60, 30, 1200][i]!, ["h1", "d"], { start: MONDAY + i * 5 * 3_600_000 }),
);

describe("random queries agree with the reference", () => {
  it("conditions, columns and sorts built from every function, operator, offset and a d:: prefix", () => {
    let runs = 0;
    let selecting = 0;
    fc.assert(
      fc.property(tree.bool, tree.num, tree.num, fc.boolean(), (condition, c1, c2, desc) => {
        const columns = c1.text === c2.text ? [c1] : [c1, c2];
        const q: RefQuery = { timeframe: "h1", condition, columns, sort: [[c1, desc ? "desc" : "asc"]] };
        const text = R.queryText(q);
        let compiled;
        try {
          compiled = compile(text);
        } catch (e) {
          // Lookbacks past the ceiling are a plan error by design; nothing else may fail.
          expect((e as Error).message, text).toMatch(/exceeds the ceiling/);
          return;
        }
        const expected = R.expectedRun(q, universe);
        const { results } = compiled.run(universe);
        runs++;
        if (results.length > 0 && results.length < universe.length) selecting++;
        expect(results.map((r) => r.symbol), text).toEqual(expected.map((r) => r.symbol));
        results.forEach((r, i) => {
          for (const [key, want] of Object.entries(expected[i]!.columns)) {
            if (!R.close9(r.columns[key]!, want, 1e4)) expect.fail(`${text}\n${r.symbol} '${key}' = ${r.columns[key]}, reference ${want}`);
          }
        });
      }),
      { numRuns: Number(process.env.XQL_FUZZ_RUNS ?? 300), seed: Number(process.env.XQL_FUZZ_SEED ?? 20261122) },
    );
    // Not vacuous: many random queries select some instruments but not all.
    expect(runs).toBeGreaterThan(250);
    expect(selecting).toBeGreaterThan(runs / 5);
  });
});
