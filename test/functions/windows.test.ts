/**
 * Windows laid end to end (src/eval/round.ts, `stackCall`): an alert round steps a call of a
 * module that `stacksWindows` — range-independent, not recursive, no state — for every symbol in
 * one kernel call over the symbols' windows laid end to end. That is sound only if such a
 * kernel's value at a bar reads its inputs over [bar − extraLookback, bar] alone, whatever lies
 * before or beside them. For every such module of the registry (a new one is covered
 * automatically), the value at each window's end equals the batch value at that bar, bit for
 * bit (`Object.is`), for random windows of walks with flat stretches and NaN warm-ups.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { standaloneContext } from "../../src/functions/module.js";
import { stacksWindows, windowEnds } from "../../src/eval/round.js";
import { BARS, arbitraryConsts, batchValues, kernelInputs, prng } from "../kit/index.js";

const STACKED = [...FUNCTIONS.values()].filter(stacksWindows);

describe("modules whose windows are stacked", () => {
  it("include the crossings, per-bar formulas and candle patterns", () => {
    const names = STACKED.map((m) => m.name);
    for (const name of ["crossover", "crossunder", "cross", "abs", "doji", "bullish_engulfing"]) expect(names).toContain(name);
    // A state or a recursion is carried symbol by symbol instead.
    for (const name of ["highest", "sma", "ema", "rsi"]) expect(names).not.toContain(name);
  });
});

describe.each(STACKED.map((m) => [m.name, m] as const))("%s: windows laid end to end = batch, bit for bit", (_name, m) => {
  it("at each window's end, for random windows of random walks", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: BARS.length - 1 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        arbitraryConsts(m, 12),
        (walk, warmup, flat, seed, consts) => {
          const bars = BARS[walk]!;
          const length = bars.close.length;
          const rand = prng(seed);
          const series = (position: number): Float64Array => {
            const source = position % 2 === 0 ? bars.close : bars.open;
            const x = flat && position > 0 ? new Float64Array(length).fill(source[0] ?? 1) : Float64Array.from(source);
            x.fill(Number.NaN, 0, Math.min(length, warmup));
            return x;
          };
          const condition = (): Float64Array => Float64Array.from({ length }, () => (rand() < 0.3 ? 1 : 0));
          const inputs = kernelInputs(m, bars, series, condition);
          const expected = batchValues(m, inputs, consts);
          const extra = m.extraLookback(consts);
          const W = extra + 1;
          // Random bars with a full window before them, in random order (a round's symbols are unrelated).
          const ends = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => extra + Math.floor(rand() * (length - extra)));
          const stacked = inputs.map((x) => {
            const y = new Float64Array(ends.length * W);
            ends.forEach((t, j) => y.set(x.subarray(t - extra, t + 1), j * W));
            return y;
          });
          const out = new Float64Array(ends.length);
          windowEnds(m, consts, standaloneContext(), stacked, ends.length, extra, new Float64Array(ends.length * W), out);
          ends.forEach((t, j) => {
            expect(Object.is(out[j], expected[t]), `${m.name}(${consts.join(", ")}) at bar ${t}: stacked ${out[j]} vs batch ${expected[t]}`).toBe(true);
          });
        },
      ),
      { numRuns: 40, seed: 28 },
    );
  });
});
