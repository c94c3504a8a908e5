/**
 * The kernel contract (src/functions/module.ts), checked for every module of the registry with
 * no per-function code: only [from, to) written and equal there to the full run's values, only
 * [from − extraLookback, to) read by windowed kernels ([0, to) by recursive ones), and a NaN bar
 * leaving earlier values alone and windows past it as they were. Definedness (first value at
 * L − 1) is the property in lookback.test.ts.
 *
 * Inputs: the first walk of the test kit's BARS (a random walk with flat stretches and spikes); a
 * series parameter reads close (the first) or open (the others), a condition parameter
 * close > open, implicit columns the bars (volume: a seeded positive series; time: hourly).
 */
import { describe, expect, it } from "vitest";
import { standaloneContext } from "../../src/functions/module.js";
import { FUNCTIONS, type FunctionSpec } from "../../src/functions/registry.js";
import { BARS, evaluate, prng, within, type Tolerance } from "../kit/index.js";

const bars = BARS[0]!;
const N = bars.close.length;
const SPECS = [...FUNCTIONS.values()];
const rand = prng(99);
const RAW = {
  open: bars.open,
  high: bars.high,
  low: bars.low,
  close: bars.close,
  volume: Float64Array.from({ length: N }, () => 1 + Math.floor(rand() * 1000)),
  time: Float64Array.from({ length: N }, (_, i) => 1_767_225_600_000 + i * 3_600_000),
};
const ABOVE = bars.close.map((c, i) => (c > bars.open[i]! ? 1 : 0));

/** Constants for a call: `lengths` in parameter order (capped by a parameter's max), numbers their first sample or 2. */
function constsFor(spec: FunctionSpec, lengths: readonly number[]): number[] {
  const out: number[] = [];
  let nth = 0;
  for (const p of spec.params) {
    if (p.kind === "length") out.push(Math.min(lengths[nth++ % lengths.length]!, p.max ?? Infinity));
    else if (p.kind === "number") out.push(p.samples?.[0] ?? 2);
  }
  return out;
}

function inputsFor(spec: FunctionSpec): Float64Array[] {
  let nth = 0;
  const args = spec.params.flatMap((p): Float64Array[] =>
    p.kind === "series" ? [nth++ === 0 ? bars.close : bars.open] : p.kind === "condition" ? [ABOVE] : [],
  );
  return [...args, ...spec.implicit.map((c) => RAW[c])];
}

const LENGTH_SETS = [
  [1, 1, 1, 1],
  [7, 13, 5, 3],
  [13, 7, 5, 9],
  [20, 3, 2, 4],
];

/** The running window sums start at from − n + 1 in a partial run, so rounding-level drift is allowed. */
const TWELVE_DIGITS: Tolerance = { rel: 1e-12, floor: 1e-300 };
const close12 = (a: number, b: number): boolean => within(a, b, TWELVE_DIGITS);

describe.each(SPECS.map((s) => [s.name, s] as const))("%s", (_name, spec) => {
  const windows: [number, number][] = [
    [N - 1, N],
    [N - 2, N],
    [150, 151],
    [0, 1],
    [5, 6],
    [17, 240],
    [0, N],
    [30, 30],
  ];

  describe.each(LENGTH_SETS)("lengths %j", (...lengths) => {
    const consts = constsFor(spec, lengths);
    const inputs = inputsFor(spec);
    const full = evaluate(spec, inputs, consts);

    it.each(windows)("computing only [%i, %i) gives the full run's values there and writes nothing else", (from, to) => {
      const SENTINEL = 7777.25;
      const out = new Float64Array(N).fill(SENTINEL);
      spec.kernel(inputs, consts, out, from, to, standaloneContext());
      // The running window sums start at from − n + 1 here, so allow rounding-level drift.
      for (let i = from; i < to; i++) if (!close12(out[i]!, full[i]!)) expect.fail(`bar ${i}: ${out[i]} != ${full[i]}`);
      for (let i = to; i < N; i++) expect(out[i]).toBe(SENTINEL);
      for (let i = 0; i < from; i++) expect(out[i]).toBe(SENTINEL);
    });

    // The evaluator trusts this declaration to skip its primed blocks (a one-bar run computes
    // one bar); history's equality with truncated runs then rests on it, bit for bit. A kernel
    // that does not declare it has nothing to check here: no test is made for it (not one skipped).
    if (spec.rangeIndependent === true) {
      it.each(windows)("declared range-independent: [%i, %i) gives the full run's values bit for bit", (from, to) => {
        const out = new Float64Array(N);
        spec.kernel(inputs, consts, out, from, to, standaloneContext());
        for (let i = from; i < to; i++) if (!Object.is(out[i], full[i])) expect.fail(`bar ${i}: ${out[i]} != ${full[i]}`);
      });
    }

    // NaN alone would not do: a kernel that skips NaN could read it unnoticed; huge values of
    // either sign would show up in any mean, maximum or minimum.
    it.each(windows)("reads no input outside [from − extraLookback, to) (recursive: outside [0, to)), [%i, %i)", (from, to) => {
      const lo = spec.recursive ? 0 : Math.max(0, from - spec.extraLookback(consts));
      for (const poison of [NaN, 1e300, -1e300]) {
        const poisoned = inputs.map((x) => x.map((v, i) => (i >= lo && i < to ? v : poison)));
        const out = new Float64Array(N);
        spec.kernel(poisoned, consts, out, from, to, standaloneContext());
        for (let i = from; i < to; i++) if (!close12(out[i]!, full[i]!)) expect.fail(`poison ${poison}, bar ${i}: ${out[i]} != ${full[i]}`);
      }
    });

    it("a NaN bar leaves earlier values alone, is undefined (false) where a window holds it, and windows past it unchanged", () => {
      const at = 100;
      // A condition input is never undefined (an undefined comparison is false): its hole is a 0.
      const conditions = spec.params.filter((p) => p.kind === "series" || p.kind === "condition").map((p) => p.kind === "condition");
      const holed = inputs.map((x, k) => {
        const y = x.slice();
        y[at] = conditions[k] ? 0 : NaN;
        return y;
      });
      const onlyConditions = inputs.every((_, k) => conditions[k] === true);
      const out = evaluate(spec, holed, consts);
      const extra = spec.extraLookback(consts);
      for (let i = 0; i < at; i++) expect(Object.is(out[i], full[i]), `bar ${i}`).toBe(true);
      // With only condition inputs the hole is an ordinary false bar (count, bars_since).
      if (!onlyConditions && spec.result === "boolean") expect(out[at], `bar ${at}`).toBe(0);
      if (!onlyConditions && spec.result === "number") {
        // Undefined at the hole itself, or, for a displaced line (senkou_b plots a value computed
        // disp − 1 bars back), at the last window that still holds it; every bar in between is
        // undefined or as it was, never a third value.
        expect(Number.isNaN(out[at]!) || (!spec.recursive && Number.isNaN(out[at + extra]!)), `the hole at ${at} is seen`).toBe(true);
        if (!spec.recursive)
          for (let i = at; i <= at + extra && i < N; i++)
            if (!Number.isNaN(out[i]!) && !close12(out[i]!, full[i]!)) expect.fail(`bar ${i}: ${out[i]} != ${full[i]}`);
      }
      if (spec.result === "boolean") for (let i = at; i <= at + extra && i < N; i++) expect(out[i], `bar ${i}`).toBe(0);
      if (!spec.recursive) for (let i = at + extra + 1; i < N; i++) if (!close12(out[i]!, full[i]!)) expect.fail(`bar ${i}: ${out[i]} != ${full[i]}`);
      for (const v of out) if (spec.result === "boolean") expect(v === 0 || v === 1).toBe(true);
    });
  });
});
