/**
 * The conformance corpus through the stepper (src/functions/stepper.ts): every column of every
 * valid case that is built of calls, series, literals, arithmetic, comparisons and logic on the
 * base timeframe is evaluated bar by bar, each call through a `Stepper` fed one bar at a time,
 * and its value at each instrument's latest bar is the library run's value there, bit for bit
 * (`Object.is`; the run reports a non-finite number as null). Columns with offsets or
 * timeframe prefixes need the evaluator around the steppers and are left to the run.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../src/ast/lower.js";
import { check } from "../../src/check/check.js";
import type { IrNode } from "../../src/check/ir.js";
import { compile, validate } from "../../src/api.js";
import { Stepper } from "../../src/functions/stepper.js";
import type { Bars } from "../../src/types.js";
import { blockBarsOf } from "../kit/index.js";
import { corpus, instrumentsOf, type Case } from "./corpus.js";

/** True when every node of `node` can be stepped bar by bar without the evaluator. */
function steppable(node: IrNode): boolean {
  switch (node.op) {
    case "timeframe":
    case "history":
      return false;
    case "call":
      return node.args.every(steppable);
    case "negate":
    case "not":
      return steppable(node.operand);
    case "and":
    case "or":
      return node.operands.every(steppable);
    case "compare":
    case "arithmetic":
      return steppable(node.left) && steppable(node.right);
    default:
      return true;
  }
}

const finite = (x: number): boolean => x - x === 0;

/** The node's value at every bar of `bars`, each call stepped one bar at a time. */
function stepAll(root: IrNode, bars: Bars, n: number): Float64Array {
  const memo = new Map<number, (i: number) => number>();
  const column = (name: string): ArrayLike<number> => bars[name as keyof Bars] as ArrayLike<number>;
  const build = (node: IrNode): ((i: number) => number) => {
    const known = memo.get(node.id);
    if (known) return known;
    let f: (i: number) => number;
    switch (node.op) {
      case "number":
        f = () => node.value;
        break;
      case "boolean":
        f = () => (node.value ? 1 : 0);
        break;
      case "series": {
        const raw = node.series.raw.map((c) => Float64Array.from(column(c)));
        const out = new Float64Array(n);
        if (node.series.combine) node.series.combine(raw, out, 0, n);
        else out.set(raw[0]!);
        f = (i) => out[i]!;
        break;
      }
      case "call": {
        const args = node.args.map(build);
        const implicit = node.fn.implicit.map((c) => column(c));
        const stepper = new Stepper(node.fn, node.consts, { blockBars: blockBarsOf(node.fn) });
        const bar = new Float64Array(args.length + implicit.length);
        // Each call steps once per bar, in bar order: the values are kept as they come.
        const values: number[] = [];
        f = (i) => {
          while (values.length <= i) {
            const t = values.length;
            args.forEach((a, k) => {
              bar[k] = a(t);
            });
            implicit.forEach((c, k) => {
              bar[args.length + k] = Number(c[t]);
            });
            values.push(stepper.step(bar));
          }
          return values[i]!;
        };
        break;
      }
      case "negate": {
        const a = build(node.operand);
        f = (i) => -a(i);
        break;
      }
      case "not": {
        const a = build(node.operand);
        f = (i) => (a(i) === 1 ? 0 : 1);
        break;
      }
      case "and":
      case "or": {
        const parts = node.operands.map(build);
        const isAnd = node.op === "and";
        f = (i) => {
          const vs = parts.map((p) => p(i));
          return isAnd ? (vs.every((v) => v === 1) ? 1 : 0) : vs.some((v) => v === 1) ? 1 : 0;
        };
        break;
      }
      case "compare": {
        const a = build(node.left);
        const b = build(node.right);
        const op = node.operator;
        f = (i) => {
          const x = a(i);
          const y = b(i);
          if (!finite(x) || !finite(y)) return 0;
          const r = op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : op === ">=" ? x >= y : op === "==" ? x === y : x !== y;
          return r ? 1 : 0;
        };
        break;
      }
      case "arithmetic": {
        const a = build(node.left);
        const b = build(node.right);
        const op = node.operator;
        f = (i) => (op === "+" ? a(i) + b(i) : op === "-" ? a(i) - b(i) : op === "*" ? a(i) * b(i) : a(i) / b(i));
        break;
      }
      default:
        throw new Error(`not steppable: ${node.op}`);
    }
    memo.set(node.id, f);
    return f;
  };
  const f = build(root);
  return Float64Array.from({ length: n }, (_, i) => f(i));
}

const CASES: Case[] = corpus.flatMap((file) => file.cases).filter((c) => validate(c.query).valid);

/** Values compared, over all cases: the last test checks the corpus exercised the stepper. */
let compared = 0;
const functionsCompared = new Set<string>();

/** The names of the functions called in `node`. */
function callsIn(node: IrNode, into: Set<string>): Set<string> {
  if (node.op === "call") into.add(node.fn.name);
  if (node.op === "call") for (const a of node.args) callsIn(a, into);
  else if (node.op === "negate" || node.op === "not") callsIn(node.operand, into);
  else if (node.op === "and" || node.op === "or") for (const o of node.operands) callsIn(o, into);
  else if (node.op === "compare" || node.op === "arithmetic") {
    callsIn(node.left, into);
    callsIn(node.right, into);
  }
  return into;
}

describe("conformance corpus through the stepper", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const checked = check(parse(c.query), c.query);
    const { instruments } = instrumentsOf(c);
    const run = compile(c.query).run(instruments);
    const tf = checked.timeframe!;
    for (const column of checked.columns) {
      const calls = callsIn(column.ir, new Set());
      if (!steppable(column.ir) || calls.size === 0) continue;
      for (const row of run.results) {
        const bars = instruments.find((x) => x.symbol === row.symbol)!.bars[tf]!;
        const n = bars.time.length;
        const value = stepAll(column.ir, bars, n)[n - 1]!;
        const want = row.columns[column.text];
        const ours = typeof want === "boolean" ? value === 1 : finite(value) ? value : null;
        expect(Object.is(ours, want), `${row.symbol} '${column.text}': stepper ${ours}, run ${want}`).toBe(true);
        compared++;
        for (const name of calls) functionsCompared.add(name);
      }
    }
  });

  it("compared the values of most built-ins", () => {
    expect(compared).toBeGreaterThan(500);
    expect(functionsCompared.size).toBeGreaterThan(80);
  });
});
