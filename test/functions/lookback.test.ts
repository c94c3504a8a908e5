/**
 * The lookback property, for every module with no per-function code: for random bars and random
 * valid parameters, a kernel's value is defined (not NaN) exactly from bar L − 1 on and NaN
 * before, where L follows decisions §1 "Lookback" as the module states it:
 * `L(call) = max(L(input)) + extraLookback(consts)`, an implicit column counting as an input with
 * L = 1, and a call with no input at all having `L = 1 + extraLookback`.
 *
 * Inputs: each series parameter is a raw column with a random number w of leading NaN (an
 * indicator still warming up: L = w + 1). Booleans never carry NaN (an undefined boolean is
 * false), so a condition input counts with L = 1, and a boolean result is checked by the rule
 * "false while undefined": every value is 0 or 1, and 0 before bar L − 1.
 *
 * Random bars have a positive range (high > low) and positive volume, so a definedness gap can
 * only come from the lookback, not from a 0/0 on a degenerate bar.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { standaloneContext } from "../../src/functions/module.js";
import { arbitraryBars, arbitraryConsts, kernelInputs } from "../kit/index.js";

const SEED = Number(process.env.XQL_FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.XQL_LOOKBACK_RUNS ?? 60);
const COLUMNS = ["close", "open", "high", "low", "volume"] as const;

/**
 * Functions whose value can be undefined after bar L − 1 on ordinary random bars, by a zero
 * denominator the data itself makes (decisions §1) or, for `bars_since`, by definition. For
 * them the property is checked in two halves: never defined before bar L − 1 (on every run),
 * and defined exactly from bar L − 1 on in most runs (so an L that is too small still fails).
 */
const DATA_DEPENDENT: ReadonlyMap<string, string> = new Map([
  ["cci", "with n = 1 the one typical price has no deviation: 0/0"],
  ["dx", "a stretch of inside bars has no directional movement: 0/0"],
  ["stochrsi_k", "a short RSI saturates at 100 or 0 on a run of rises or falls, and its k-bar range is 0"],
  ["stochrsi_d", "the same, through stochrsi_k"],
  ["bars_since", "undefined when the event did not happen in the window"],
  ["zscore", "σ = 0 with n = 1"],
  ["correl", "a flat operand (n = 1) has no variance"],
  ["bb_percent", "σ = 0 with n = 1: the bands meet"],
]);

describe.each([...FUNCTIONS.values()].map((fn) => [fn.name, fn] as const))("%s", (_name, fn) => {
  it("is defined exactly from bar L − 1 on (false before it, for a boolean)", () => {
    const dataDependent = DATA_DEPENDENT.has(fn.name);
    let runs = 0;
    let exact = 0;
    const seriesCount = fn.params.filter((p) => p.kind === "series").length;
    fc.assert(
      fc.property(
        arbitraryBars(1, 160),
        arbitraryConsts(fn),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: seriesCount, maxLength: seriesCount }),
        fc.array(fc.constantFrom(...COLUMNS), { minLength: seriesCount, maxLength: seriesCount }),
        (bars, consts, warm, columns) => {
          let s = 0;
          let c = 0;
          const warmOf: number[] = [];
          const inputs = kernelInputs(
            fn,
            bars,
            () => {
              const w = warm[s]!;
              const column = bars[columns[s++]!];
              warmOf.push(w);
              return column.map((v, i) => (i < w ? NaN : v));
            },
            () => {
              const k = c++;
              return bars.close.map((v, i) => (v > bars.open[i]! !== (k % 2 === 1) ? 1 : 0));
            },
          );
          const inputLookbacks = [
            ...warmOf.map((w) => w + 1),
            ...fn.params.filter((p) => p.kind === "condition").map(() => 1),
            ...fn.implicit.map(() => 1),
          ];
          const L = (inputLookbacks.length === 0 ? 1 : Math.max(...inputLookbacks)) + fn.extraLookback(consts);
          const out = new Float64Array(bars.close.length);
          fn.kernel(inputs, consts, out, 0, out.length, standaloneContext());
          if (dataDependent) {
            runs++;
            for (let i = 0; i < Math.min(L - 1, out.length); i++)
              if (!Number.isNaN(out[i]!)) expect.fail(`bar ${i}: ${out[i]} before L − 1 = ${L - 1} (consts ${consts}, warm-up ${warmOf})`);
            let defined = true;
            for (let i = L - 1; i < out.length; i++) defined &&= !Number.isNaN(out[i]!);
            if (defined) exact++;
            return;
          }
          for (let i = 0; i < out.length; i++) {
            const v = out[i]!;
            if (fn.result === "boolean") {
              if (v !== 0 && v !== 1) expect.fail(`bar ${i}: boolean ${v} (consts ${consts}, L ${L})`);
              if (i < L - 1 && v !== 0) expect.fail(`bar ${i} < L − 1 = ${L - 1}: true while undefined (consts ${consts})`);
            } else if (i < L - 1 ? !Number.isNaN(v) : Number.isNaN(v)) {
              expect.fail(`bar ${i}: ${v}, but L − 1 = ${L - 1} (consts ${consts}, warm-up ${warmOf}, columns ${columns})`);
            }
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    if (dataDependent) expect(exact, `${fn.name}: runs defined from L − 1 on (${DATA_DEPENDENT.get(fn.name)})`).toBeGreaterThan(runs / 2);
  });
});
