/**
 * Running a built-in module the way the evaluator feeds it (series and condition arguments,
 * then the implicit columns), the contract every module keeps, and a call through the public
 * API for the cases where the evaluation around the kernel matters.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { compile } from "../../src/api.js";
import { MODULES } from "../../src/functions/builtins/index.js";
import { PRIMED_BLOCK_BARS } from "../../src/eval/program.js";
import { standaloneContext, type FunctionModule } from "../../src/functions/module.js";
import { Stepper } from "../../src/functions/stepper.js";
import { TIMEFRAME_MS, type Timeframe } from "../../src/types.js";
import type { Columns } from "./bars.js";
import { firstDefined } from "./expect.js";
import { HOUR } from "./time.js";

/** Every built-in module by name (`MODULE.sma`), for tests that run one directly. */
export const MODULE: Readonly<Record<string, FunctionModule>> = Object.fromEntries(MODULES.map((m) => [m.name, m]));

/** Lengths the reference comparisons sweep. */
export const LENGTHS = [1, 2, 5, 9, 14, 20, 50, 200];

/** The kernel inputs of a call: its series and condition arguments (given, or their defaults), then the implicit columns. */
export function inputsOf(m: FunctionModule, bars: Columns, args: readonly Float64Array[] = []): Float64Array[] {
  const inputs: Float64Array[] = [];
  let k = 0;
  for (const p of m.params) {
    if (p.kind !== "series" && p.kind !== "condition") continue;
    const given = args[k++];
    if (given) inputs.push(given);
    else if (p.default) inputs.push(bars[p.default]);
    else throw new Error(`${m.name}: argument '${p.name}' has no default; pass it`);
  }
  for (const col of m.implicit) inputs.push(bars[col]);
  return inputs;
}

/**
 * The kernel inputs of a call on `bars` for property tests: each series parameter gets
 * `series(position)`, each condition parameter `condition(position)` (1/0), then the implicit columns.
 */
export function kernelInputs(
  m: FunctionModule,
  bars: Columns,
  series: (position: number) => Float64Array,
  condition: (position: number) => Float64Array,
): Float64Array[] {
  const args = m.params.flatMap((p, j): Float64Array[] =>
    p.kind === "series" ? [series(j)] : p.kind === "condition" ? [condition(j)] : [],
  );
  return [...args, ...m.implicit.map((c) => bars[c])];
}

/** Runs a module's kernel over every bar in one call (a full backfill), on a timeframe of `timeframeMs`. */
export function evaluate(m: FunctionModule, inputs: readonly Float64Array[], consts: readonly number[], timeframeMs = HOUR): Float64Array {
  const out = new Float64Array(inputs[0]?.length ?? 0);
  m.kernel(inputs, consts, out, 0, out.length, standaloneContext(timeframeMs));
  return out;
}

/** L of a call whose series inputs are raw columns (L = 1 each). */
export function lookbackOf(m: FunctionModule, consts: readonly number[]): number {
  return 1 + m.extraLookback(consts);
}

/**
 * The contract properties of one call on the given inputs: a number is undefined before L − 1
 * and, with every input defined, first defined at L − 1 and defined at every later bar —
 * unless `gaps` allows undefined values later (zero denominators on a flat stretch) or
 * `sparse` says the value exists only where the data says so (`bars_since` of an event); a
 * boolean is 1 or 0 at every bar. Evaluating in pieces (as the evaluator does for offsets)
 * gives the same values bit for bit, and a windowed kernel gives the same values with every
 * input bar before `from − extraLookback` poisoned with NaN.
 */
export function checkContract(
  m: FunctionModule,
  inputs: readonly Float64Array[],
  consts: readonly number[],
  options: { gaps?: boolean; sparse?: boolean; timeframeMs?: number } = {},
): Float64Array {
  const tf = options.timeframeMs ?? HOUR;
  const whole = evaluate(m, inputs, consts, tf);
  const L = lookbackOf(m, consts);
  const label = `${m.name}(${consts.join(", ")})`;
  if (m.result === "number") {
    for (let i = 0; i < Math.min(L - 1, whole.length); i++) expect(whole[i], `${label} #${i} before L − 1`).toBeNaN();
    if (!options.sparse) expect(firstDefined(whole), `${label}: first defined bar`).toBe(L - 1);
    if (!options.gaps && !options.sparse) for (let i = L - 1; i < whole.length; i++) expect(whole[i], `${label} #${i}`).not.toBeNaN();
  } else {
    for (const v of whole) expect(v === 0 || v === 1, `${label}: booleans are 1 or 0`).toBe(true);
  }

  const ctx = standaloneContext(tf);
  const pieces = new Float64Array(whole.length).fill(-12345);
  for (const [a, b] of [[0, 1], [1, 7], [7, 8], [8, 61], [61, 62], [62, 200], [200, whole.length]] as const) {
    m.kernel(inputs, consts, pieces, a, Math.min(b, whole.length), ctx);
  }
  for (let i = 0; i < whole.length; i++) expect(Object.is(pieces[i], whole[i]), `${label} in pieces #${i}: ${pieces[i]} vs ${whole[i]}`).toBe(true);

  if (!m.recursive) {
    const extra = m.extraLookback(consts);
    for (const from of [L + 3, 150, whole.length - 5]) {
      const poisoned = inputs.map((x) => {
        const y = Float64Array.from(x);
        y.fill(NaN, 0, Math.max(0, from - extra));
        return y;
      });
      const out = new Float64Array(whole.length).fill(-12345);
      m.kernel(poisoned, consts, out, from, whole.length, standaloneContext(tf));
      for (let i = from; i < whole.length; i++) {
        expect(Object.is(out[i], whole[i]), `${label} from ${from} reads nothing before ${from - extra} (#${i})`).toBe(true);
      }
    }
  }
  return whole;
}

/**
 * The value of `expression` at the latest bar of one instrument through the public API
 * (`compile(query).run`), or null when it is undefined there.
 */
export function latestThroughRun(expression: string, bars: Columns, timeframe: Timeframe = "h1"): number | null {
  expect(bars.time[1]! - bars.time[0]!).toBe(TIMEFRAME_MS[timeframe]);
  const query = `market = "CRYPTO"\ntimeframe = ${timeframe}\ncolumns = [${expression}]\ntrue`;
  const { results } = compile(query).run([{ symbol: "X", bars: { [timeframe]: bars } }]);
  expect(results.length).toBe(1);
  return results[0]!.columns[expression] as number | null;
}

/**
 * Random valid constants for a module's `length` and `number` parameters: lengths from 1 to the
 * parameter's `max` (at most `cap`), numbers from its `samples` or a spread of multipliers.
 */
export function arbitraryConsts(m: FunctionModule, cap = 30): fc.Arbitrary<number[]> {
  const parts = m.params.flatMap((p): fc.Arbitrary<number>[] => {
    if (p.kind === "length") return [fc.integer({ min: 1, max: Math.min(p.max ?? cap, cap) })];
    if (p.kind === "number") return [fc.constantFrom(...(p.samples ?? [0.5, 1, 2, 2.5, -1.5]))];
    return [];
  });
  return fc.tuple(...parts);
}

/** A reference result aligned to the last bar (as technicalindicators returns it), spread over all bars. */
export function alignEnd(ref: readonly (number | undefined)[], length: number): Float64Array {
  const out = new Float64Array(length).fill(NaN);
  const offset = length - ref.length;
  ref.forEach((v, j) => {
    out[offset + j] = v ?? NaN;
  });
  return out;
}

/** The evaluator's rule (src/eval/program.ts): windowed kernels whose values depend on the range run in primed blocks. */
export const blockBarsOf = (m: FunctionModule): number => (!m.recursive && m.rangeIndependent !== true ? PRIMED_BLOCK_BARS : 0);

/** A module's values over every bar, called as the evaluator calls its kernel: once, or once per primed block. */
export function batchValues(m: FunctionModule, inputs: readonly Float64Array[], consts: readonly number[], timeframeMs = HOUR): Float64Array {
  const n = inputs[0]?.length ?? 0;
  const out = new Float64Array(n);
  const ctx = standaloneContext(timeframeMs);
  const block = blockBarsOf(m);
  if (block === 0) m.kernel(inputs, consts, out, 0, n, ctx);
  else for (let start = 0; start < n; start += block) m.kernel(inputs, consts, out, start, Math.min(start + block, n), ctx);
  return out;
}

/** A module's values over every bar from a `Stepper` fed the same inputs one bar at a time. */
export function steppedValues(m: FunctionModule, inputs: readonly Float64Array[], consts: readonly number[], timeframeMs = HOUR): Float64Array {
  const n = inputs[0]?.length ?? 0;
  const stepper = new Stepper(m, consts, { blockBars: blockBarsOf(m), ctx: standaloneContext(timeframeMs) });
  const out = new Float64Array(n);
  const bar = new Float64Array(inputs.length);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < inputs.length; k++) bar[k] = inputs[k]![i]!;
    out[i] = stepper.step(bar);
  }
  return out;
}

/** The first bar where two value arrays differ (`Object.is`: NaN equals NaN, 0 differs from −0), or −1. */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}
