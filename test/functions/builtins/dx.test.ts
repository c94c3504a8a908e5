import { describe, expect, it } from "vitest";
import { dx } from "../../../src/functions/builtins/dx.js";
import { minus_di } from "../../../src/functions/builtins/minus_di.js";
import { plus_di } from "../../../src/functions/builtins/plus_di.js";
import { BARS, PLAIN, checkContract, columns, evaluate, expectClose, flatBars, inputsOf } from "../../kit/index.js";

describe("dx", () => {
  it("is 100·|+DI − −DI|/(+DI + −DI) of the same n at every bar", () => {
    for (const bars of [...BARS, ...PLAIN])
      for (const n of [2, 14]) {
        const p = evaluate(plus_di, inputsOf(plus_di, bars), [n]);
        const m = evaluate(minus_di, inputsOf(minus_di, bars), [n]);
        const expected = p.map((v, i) => (100 * Math.abs(v - m[i]!)) / (v + m[i]!));
        expectClose(evaluate(dx, inputsOf(dx, bars), [n]), expected, { rel: 1e-12, floor: 1 }, `dx(${n})`);
      }
  });

  it("is undefined with a range but no directional movement (only inside bars), where TA-Lib writes 0", () => {
    // Each bar inside the previous one: no +DM, no −DM, a non-zero true range.
    const c = columns({ high: [20, 19, 18, 17, 16], low: [10, 11, 12, 13, 14], close: [15, 15, 15, 15, 15] });
    expect(Array.from(evaluate(plus_di, inputsOf(plus_di, c), [2]))).toEqual([NaN, NaN, 0, 0, 0]);
    expect(Array.from(evaluate(dx, inputsOf(dx, c), [2])).every(Number.isNaN)).toBe(true);
  });

  it("is first defined at bar n, keeps the kernel contract, and is undefined on a flat series", () => {
    for (const bars of PLAIN) checkContract(dx, inputsOf(dx, bars), [14]);
    expect(Array.from(evaluate(dx, inputsOf(dx, flatBars(30)), [5])).every(Number.isNaN)).toBe(true);
  });
});
