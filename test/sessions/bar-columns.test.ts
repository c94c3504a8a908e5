/**
 * `BarColumns.pushRange`, the one copy of a range of bars the writers use (src/sessions/aggregate.ts):
 * all six columns, typed or plain sources, growing past its capacity, an empty range a no-op.
 */
import { describe, expect, it } from "vitest";
import { BarColumns } from "../../src/sessions/aggregate.js";
import type { Bars } from "../../src/types.js";

function bars(n: number, at: number): Bars {
  const time = Array.from({ length: n }, (_, i) => at + i);
  return { time, open: time.map((t) => t + 0.1), high: time.map((t) => t + 0.2), low: time.map((t) => t + 0.3), close: time.map((t) => t + 0.4), volume: time.map((t) => t + 0.5) };
}

const plain = (c: Bars): number[][] => [c.time, c.open, c.high, c.low, c.close, c.volume].map((x) => Array.from(x));

describe("BarColumns.pushRange", () => {
  it("copies a range of every column after the bars already there, growing as it needs", () => {
    const out = new BarColumns(2);
    out.push(1, 2, 3, 4, 5, 6);
    const typed = bars(40, 100);
    const typedColumns: Bars = Object.fromEntries(Object.entries(typed).map(([k, v]) => [k, Float64Array.from(v as number[])])) as unknown as Bars;
    out.pushRange(typedColumns, 5, 37);
    out.pushRange(bars(3, 500));
    out.pushRange(typedColumns, 10, 10);
    const got = plain(out.bars());
    const want = plain(bars(40, 100)).map((column, k) => [[1, 2, 3, 4, 5, 6][k]!, ...column.slice(5, 37), ...plain(bars(3, 500))[k]!]);
    expect(got).toEqual(want);
    expect(out.length).toBe(1 + 32 + 3);
  });
});
