/**
 * Steppers equal batch kernels bit for bit, for every module of the registry with no
 * per-function code (a new module is covered automatically): a `Stepper` fed one bar at a time
 * gives at every bar exactly (`Object.is`) the value the evaluator's batch call gives there —
 * one call over all bars for a recursive or range-independent kernel, one call per primed
 * block for the others (src/eval/values.ts).
 *
 * Inputs are random slices of the test kit's walks (flat stretches, spikes, a stretch without
 * volume), a series argument NaN over a random warm-up (a nested indicator not yet defined),
 * sometimes a flat series, and random conditions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { Stepper } from "../../src/functions/stepper.js";
import { freshState, standaloneContext } from "../../src/functions/module.js";
import { BARS, PLAIN, arbitraryConsts, blockBarsOf, batchValues, firstDifference, kernelInputs, prng, steppedValues } from "../kit/index.js";

const SPECS = [...FUNCTIONS.values()];

describe.each(SPECS.map((s) => [s.name, s] as const))("%s: stepper = batch, bit for bit", (_name, m) => {
  it("on random slices of walks with flat stretches, spikes and NaN warm-ups", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: BARS.length - 1 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        arbitraryConsts(m, 30),
        (walk, start, length, warmup, flat, seed, consts) => {
          const b = BARS[walk]!;
          const end = Math.min(b.close.length, start + length);
          const bars = {
            time: b.time.subarray(start, end),
            open: b.open.subarray(start, end),
            high: b.high.subarray(start, end),
            low: b.low.subarray(start, end),
            close: b.close.subarray(start, end),
            volume: b.volume.subarray(start, end),
          };
          const n = end - start;
          const rand = prng(seed);
          const series = (position: number): Float64Array => {
            const source = position % 2 === 0 ? bars.close : bars.open;
            const x = flat && position > 0 ? new Float64Array(n).fill(source[0] ?? 1) : Float64Array.from(source);
            x.fill(NaN, 0, Math.min(n, warmup));
            return x;
          };
          const condition = (): Float64Array => Float64Array.from({ length: n }, () => (rand() < 0.3 ? 1 : 0));
          const inputs = kernelInputs(m, bars, series, condition);
          const expected = batchValues(m, inputs, consts);
          const actual = steppedValues(m, inputs, consts);
          const at = firstDifference(actual, expected);
          expect(at, `${m.name}(${consts.join(", ")}) at bar ${at}: stepper ${actual[at]} vs batch ${expected[at]}`).toBe(-1);
        },
      ),
      { numRuns: 40, seed: 28 },
    );
  });
});

describe.each(SPECS.filter((s) => s.stateSize !== undefined).map((s) => [s.name, s] as const))("%s: resumable", (_name, m) => {
  it("carries its state from bar to bar once warmed up, instead of recomputing", () => {
    const bars = PLAIN[0]!;
    const consts = m.params.flatMap((p) => (p.kind === "length" ? [5] : p.kind === "number" ? [p.samples?.[0] ?? 2] : []));
    const inputs = kernelInputs(m, bars, (j) => (j === 0 ? bars.close : bars.open), () => bars.close.map((c, i) => (c > bars.open[i]! ? 1 : 0)));
    const stepper = new Stepper(m, consts, { blockBars: blockBarsOf(m) });
    const bar = new Float64Array(inputs.length);
    for (let i = 0; i < bars.close.length; i++) {
      for (let k = 0; k < inputs.length; k++) bar[k] = inputs[k]![i]!;
      stepper.step(bar);
    }
    expect(stepper.carrying).toBe(true);
  });
});

describe.each(SPECS.filter((s) => s.stateSize !== undefined).map((s) => [s.name, s] as const))("%s: resumes from its window alone", (_name, m) => {
  // The carried passes of alerts and `watch` (src/eval/carry.ts) keep only each input's last
  // extraLookback values: a kernel resuming from its state must read nothing before them.
  it("reads its inputs only in [from − extraLookback, to) when its state resumes at `from`", () => {
    const bars = PLAIN[0]!;
    const consts = m.params.flatMap((p) => (p.kind === "length" ? [5] : p.kind === "number" ? [p.samples?.[0] ?? 2] : []));
    const inputs = kernelInputs(m, bars, (j) => (j === 0 ? bars.close : bars.open), () => bars.close.map((c, i) => (c > bars.open[i]! ? 1 : 0)));
    const expected = batchValues(m, inputs, consts);
    const block = blockBarsOf(m);
    const ctx = standaloneContext();
    const extra = m.extraLookback(consts);
    let checked = 0;
    for (const at of [70, 121, 150, 199]) {
      if (at >= expected.length || (block > 0 && at % block === 0)) continue;
      // The state at `at`, as the evaluator leaves it: one call from the start of the bars, or
      // from the start of `at`'s primed block for a kernel run in blocks (`at` is inside it).
      const state = freshState(m.stateSize!(consts));
      const out = new Float64Array(expected.length);
      m.kernel(inputs, consts, out, block > 0 ? at - (at % block) : 0, at, ctx, state);
      if (state[0] !== at) continue; // nothing worth carrying yet (a recursion before its seed)
      const windowed = inputs.map((x) => {
        const y = Float64Array.from(x);
        y.fill(Number.NaN, 0, Math.max(0, at - extra));
        return y;
      });
      m.kernel(windowed, consts, out, at, at + 1, ctx, state);
      expect(Object.is(out[at], expected[at]), `${m.name}(${consts.join(", ")}) at ${at}: ${out[at]} vs ${expected[at]}`).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});
