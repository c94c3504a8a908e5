/**
 * `ema`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { EMA } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, firstDefined, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("ema(close, %i) = EMA (SMA-seeded)", (n) => {
    const ours = evaluate(MODULE.ema, [close], [n]);
    expectClose(ours, alignEnd(EMA.calculate({ period: n, values: Array.from(close) }), N), { rel: 1e-9, floor: floor }, "against technicalindicators");
  });
});

describe("worked examples", () => {
  it("ema seeds with the SMA of the first n values: [2, 4, 6, 8, 10] over 3 bars (alpha 0.5)", () => {
    expect(Array.from(evaluate(MODULE.ema, [Float64Array.from([2, 4, 6, 8, 10])], [3]))).toEqual([NaN, NaN, 4, 6, 8]);
  });

  it("ema's first value is exactly the SMA of the first n closes on every fixture", () => {
    for (const { close } of BARS) {
      for (const n of [9, 21, 50]) {
        const e = evaluate(MODULE.ema, [close], [n]);
        let sum = 0;
        for (let j = 0; j < n; j++) sum += close[j]!;
        expect(firstDefined(e)).toBe(n - 1);
        expect(e[n - 1]).toBe(sum / n);
      }
    }
  });
});

describe("ema after a NaN bar", () => {
  it("stays undefined from the hole on (recursive: the NaN poisons the average, as in the references)", () => {
    const { close } = BARS[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [close].map(hole);
    const clean = evaluate(MODULE.ema, [close], [9]);
    const out = evaluate(MODULE.ema, inputs, [9]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
