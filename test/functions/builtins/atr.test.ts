/**
 * `atr`: reference values (the `technicalindicators` package, at every bar of four generated
 * instruments) and hand-worked examples. Contract, lookback and evaluator properties of every
 * module run in test/functions/contract.test.ts, test/functions/lookback.test.ts and test/eval/.
 */
import { ATR } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { BARS, LENGTHS, MODULE, alignEnd, evaluate, expectClose, firstDefined, floorOf } from "../../kit/index.js";

const N = BARS[0]!.close.length;

describe.each(BARS)("$name against technicalindicators", (bars) => {
  const close = bars.close;
  const floor = floorOf(bars);

  it.each(LENGTHS)("atr(%i) = ATR (first value at bar n)", (n) => {
    const ours = evaluate(MODULE.atr, [bars.high, bars.low, close], [n]);
    const ref = ATR.calculate({ period: n, high: Array.from(bars.high), low: Array.from(bars.low), close: Array.from(close) });
    expectClose(ours, alignEnd(ref, N), { rel: 1e-9, floor: floor }, "against technicalindicators");
    expect(firstDefined(ours)).toBe(n);
  });
});

describe("worked examples", () => {
  it("atr: first value at bar n is the mean of TR[1..n], then Wilder's RMA", () => {
    const high = Float64Array.from([10, 11, 12, 11]);
    const low = Float64Array.from([9, 10, 10, 9]);
    const close = Float64Array.from([9.5, 10.5, 11, 10]);
    // TR[1] = max(1, 1.5, 0.5) = 1.5; TR[2] = max(2, 1.5, 0.5) = 2; TR[3] = max(2, 0, 2) = 2.
    const a = evaluate(MODULE.atr, [high, low, close], [2]);
    expect(Array.from(a)).toEqual([NaN, NaN, 1.75, 1.875]);
  });
});

describe("atr after a NaN bar", () => {
  it("stays undefined from the hole on (recursive: the NaN poisons the average, as in the references)", () => {
    const { high, low, close } = BARS[0]!;
    const hole = <T extends Float64Array>(x: T): Float64Array => x.map((v, i) => (i === 100 ? NaN : v));
    const inputs = [high, low, close].map(hole);
    const clean = evaluate(MODULE.atr, [high, low, close], [14]);
    const out = evaluate(MODULE.atr, inputs, [14]);
    for (let i = 0; i < 100; i++) expect(Object.is(out[i], clean[i])).toBe(true);
    for (let i = 100; i < out.length; i++) expect(out[i], `bar ${i}`).toBeNaN();
  });
});
