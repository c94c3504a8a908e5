/**
 * The kernel contract (src/functions/kernel.ts) and the registry's lookback arithmetic,
 * checked for every registered function: first defined bar = L − 1 with L = 1 + extraLookback
 * on a raw source, L(call) = L(input) + extraLookback on an input that is itself warming up,
 * only [from, to) written, only [from − extraLookback, to) read by windowed kernels, NaN
 * windows, and the accuracy of running sums against exact arithmetic.
 */
import { standaloneContext } from "../../src/functions/module.js";
import { describe, expect, it } from "vitest";
import type { Kernel } from "../../src/functions/kernel.js";
import { KERNELS as kernels } from "./series.js";
import { FUNCTIONS, type FunctionSpec } from "../../src/functions/registry.js";
import { FIXTURES, firstDefined, run, walk } from "./series.js";

const bars = FIXTURES[0]!;
const N = bars.close.length;
const SPECS = [...FUNCTIONS.values()];
const RAW = { open: bars.open, high: bars.high, low: bars.low, close: bars.close, volume: bars.close };

/** Constants for a call: lengths 7, 13, 5 in parameter order (so macd is 7/13/5), k = 2. */
function constsFor(spec: FunctionSpec, lengths: readonly number[] = [7, 13, 5]): number[] {
  const out: number[] = [];
  let nth = 0;
  for (const p of spec.params) {
    if (p.kind === "length") out.push(lengths[nth++]!);
    else if (p.kind === "number") out.push(2);
  }
  return out;
}

/** Inputs for a call: every series parameter gets `series(position)`, implicit inputs the raw bars. */
function inputsFor(spec: FunctionSpec, series: (position: number) => Float64Array): Float64Array[] {
  const seriesParams = spec.params.filter((p) => p.kind === "series").map((_, j) => series(j));
  return [...seriesParams, ...spec.implicit.map((r) => (r === "time" ? new Float64Array(N).map((_, i) => i * 3_600_000) : RAW[r]))];
}

const rawInput = (j: number): Float64Array => (j === 0 ? bars.close : bars.open);

describe("registry and kernels", () => {
  it("every kernel is used by the registry and every registry kernel is one of ours", () => {
    const used = new Set(SPECS.map((s) => s.kernel));
    for (const [name, kernel] of Object.entries(kernels)) expect(used.has(kernel), name).toBe(true);
    const ours = new Set<Kernel>(Object.values(kernels));
    for (const spec of SPECS) expect(ours.has(spec.kernel), spec.name).toBe(true);
    expect(FUNCTIONS.get("avg")!.kernel).toBe(kernels.sma);
  });
});

describe.each(SPECS.map((s) => [s.name, s] as const))("%s", (_name, spec) => {
  const lengthSets = spec.name.startsWith("macd") ? [[7, 13, 5], [13, 7, 5], [12, 26, 9], [3, 3, 1]] : [[1], [7], [20]];

  it.each(lengthSets)("first defined bar on raw bars is L − 1 (lengths %j)", (...lengths) => {
    const consts = constsFor(spec, lengths);
    const L = 1 + spec.extraLookback(consts);
    const out = run(spec.kernel, inputsFor(spec, rawInput), consts);
    if (spec.result === "boolean") {
      for (let i = 0; i < L - 1; i++) expect(out[i]).toBe(0);
      for (const v of out) expect(v === 0 || v === 1).toBe(true);
    } else {
      expect(firstDefined(out)).toBe(L - 1);
      for (let i = L - 1; i < N; i++) expect(Number.isNaN(out[i]!), `bar ${i}`).toBe(false);
    }
  });

  // atr reads raw bars only, so it never sees an indicator as input.
  it.skipIf(spec.params[0]?.kind !== "series")(
    "on an input still warming up (rsi(14), defined from bar 14), L(call) = L(input) + extraLookback",
    () => {
    const warming = run(kernels.rsi, [bars.close], [14]);
    const consts = constsFor(spec);
    const inputs = inputsFor(spec, (j) => (j === 0 ? warming : bars.close));
    const out = run(spec.kernel, inputs, consts);
    const L = 15 + spec.extraLookback(consts);
    if (spec.result === "boolean") {
      for (let i = 0; i < L - 1; i++) expect(out[i]).toBe(0);
    } else {
      expect(firstDefined(out)).toBe(L - 1);
    }
    },
  );

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

  it.each(windows)("computing only [%i, %i) gives the full run's values there and writes nothing else", (from, to) => {
    const consts = constsFor(spec);
    const inputs = inputsFor(spec, rawInput);
    const full = run(spec.kernel, inputs, consts);
    const SENTINEL = 7777.25;
    const out = new Float64Array(N).fill(SENTINEL);
    spec.kernel(inputs, consts, out, from, to, standaloneContext());
    for (let i = from; i < to; i++) {
      if (Number.isNaN(full[i]!)) expect(out[i]).toBeNaN();
      // The running window sum of sma starts at from − n + 1 here, so allow rounding-level drift.
      else expect(Math.abs(out[i]! - full[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(full[i]!));
    }
    for (let i = to; i < N; i++) expect(out[i]).toBe(SENTINEL);
    for (let i = 0; i < from; i++) expect(out[i]).toBe(SENTINEL);
  });

  // NaN alone would not do: a kernel that skips NaN could read it unnoticed; huge values of
  // either sign would show up in any mean, maximum or minimum.
  it.each(windows)("reads no input outside [from − extraLookback, to) (recursive: outside [0, to)), [%i, %i)", (from, to) => {
    const consts = constsFor(spec);
    const inputs = inputsFor(spec, rawInput);
    const full = run(spec.kernel, inputs, consts);
    const lo = spec.recursive ? 0 : Math.max(0, from - spec.extraLookback(consts));
    for (const poison of [NaN, 1e300, -1e300]) {
      const poisoned = inputs.map((x) => x.map((v, i) => (i >= lo && i < to ? v : poison)));
      const out = new Float64Array(N);
      spec.kernel(poisoned, consts, out, from, to, standaloneContext());
      for (let i = from; i < to; i++) {
        if (Number.isNaN(full[i]!)) expect(out[i]).toBeNaN();
        else expect(Math.abs(out[i]! - full[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(full[i]!));
      }
    }
  });

  it("a NaN bar in the middle makes every window holding it undefined (false for booleans); recursive values stay NaN", () => {
    const at = 100;
    const consts = constsFor(spec);
    const clean = run(spec.kernel, inputsFor(spec, rawInput), consts);
    const holed = inputsFor(spec, rawInput).map((x) => {
      const y = x.slice();
      y[at] = NaN;
      return y;
    });
    const out = run(spec.kernel, holed, consts);
    const extra = spec.extraLookback(consts);
    for (let i = 0; i < N; i++) {
      if (spec.result === "boolean") {
        // A boolean whose window [i − extra, i] holds the NaN bar is false (crossover: extra 1).
        const touches = i >= at && i <= at + extra;
        expect(out[i], `bar ${i}`).toBe(touches ? 0 : clean[i]);
        continue;
      }
      if (i < at) expect(Object.is(out[i], clean[i]), `bar ${i}`).toBe(true);
      else if (spec.recursive) expect(out[i], `bar ${i}`).toBeNaN();
      else if (spec.name === "roc" || spec.name === "change") {
        if (i === at || i === at + extra) expect(out[i]).toBeNaN();
        else expect(Math.abs(out[i]! - clean[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(clean[i]!));
      } else if (i <= at + extra) expect(out[i], `bar ${i}`).toBeNaN();
      else expect(Math.abs(out[i]! - clean[i]!)).toBeLessThanOrEqual(1e-12 * Math.abs(clean[i]!));
    }
  });
});
