/**
 * Common subexpressions are computed once per instrument: the checker hash-conses identical
 * expressions into one IR node and the evaluator keeps one slot per (node, timeframe). Shown by
 * counting kernel calls: the evaluator calls `node.fn.kernel` of the registry entry, so a spy on
 * that entry's `kernel` property sees every call (restored after each test).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { compile } from "../../src/index.js";
import { FUNCTIONS, type FunctionSpec } from "../../src/functions/registry.js";
import type { Kernel } from "../../src/functions/kernel.js";
import { aggregate, MONDAY, symbolName, tickWalk } from "../kit/index.js";

const header = 'market = "CRYPTO"\ntimeframe = h1\n';
const N = 20;
const universe = Array.from({ length: N }, (_, i) => {
  const h1 = tickWalk({ seed: 500 + i, count: 24 * 20, timeframe: "h1", start: MONDAY });
  return { symbol: symbolName(i), bars: { h1, d: aggregate(h1, "d") } };
});

/** Counts calls of a function's kernel while `body` runs; the real kernel still computes. */
function countKernelCalls(name: string): { calls: () => number; reset: () => void } {
  const spec = FUNCTIONS.get(name) as FunctionSpec & { kernel: Kernel };
  const spy = vi.spyOn(spec, "kernel");
  return { calls: () => spy.mock.calls.length, reset: () => spy.mockClear() };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("common subexpressions are computed once per instrument", () => {
  it("rsi(14) in columns, sort and condition: one rsi kernel call per instrument", () => {
    const q = compile(header + "columns = [close, rsi(14)]\nsort = rsi(14) asc\nrsi(14) < 101");
    const rsi = countKernelCalls("rsi");
    const { results } = q.run(universe);
    expect(results).toHaveLength(N);
    expect(rsi.calls()).toBe(N);
  });

  it("spelling does not matter: rsi(14), rsi(close, 14), rsi( 14 ) and a let are one computation", () => {
    const q = compile(header + "let r = rsi(close, 14)\ncolumns = [rsi( 14 ), r]\nsort = rsi(14) desc\nr > 0 and rsi(14) < 101");
    const rsi = countKernelCalls("rsi");
    const { results } = q.run(universe);
    expect(results).toHaveLength(N);
    expect(rsi.calls()).toBe(N);
    for (const r of results) expect(r.columns["rsi( 14 )"]).toBe(r.columns["r"]);
  });

  it("a crossover's two bars cover the column's one: ema(9) and ema(21) once each", () => {
    const q = compile(header + "columns = [ema(close, 9), ema(21)]\nsort = ema(close, 9) - ema(close, 21) desc\ncrossover(ema(close, 9), ema(close, 21)) or ema(9) > 0");
    const ema = countKernelCalls("ema");
    const { results } = q.run(universe);
    expect(results).toHaveLength(N);
    expect(ema.calls()).toBe(2 * N);
  });

  it("a recursive indicator at several offsets is streamed once: rsi(14) > rsi(14)[1], macd now and 3 bars ago", () => {
    const rsi = countKernelCalls("rsi");
    const macd = countKernelCalls("macd");
    const q = compile(header + "columns = [rsi(14)[2]]\nrsi(14) > -1 and rsi(14)[1] > -1 and macd(12, 26) > -1e9 and macd(12, 26)[3] > -1e9");
    expect(q.run(universe).results).toHaveLength(N);
    expect(rsi.calls()).toBe(N);
    expect(macd.calls()).toBe(N);
    // Across timeframes: (d::rsi(14))[1] and d::rsi(14)[1] beside d::rsi(14).
    const d = compile(header + "d::rsi(14) > -1 and (d::rsi(14))[1] > -1 and d::rsi(14)[1] > -1");
    rsi.reset();
    expect(d.run(universe).results).toHaveLength(N);
    expect(rsi.calls()).toBe(N);
  });

  it("on another timeframe too: d::rsi(14) used twice is one call", () => {
    const q = compile(header + "columns = [d::rsi(14)]\nd::rsi(14) >= 0");
    const rsi = countKernelCalls("rsi");
    expect(q.run(universe).results).toHaveLength(N);
    expect(rsi.calls()).toBe(N);
  });

  it("the same call on two timeframes is two computations", () => {
    const q = compile(header + "columns = [rsi(14), d::rsi(14)]\ntrue");
    const rsi = countKernelCalls("rsi");
    q.run(universe);
    expect(rsi.calls()).toBe(2 * N);
  });

  it("and/or stop early: an indicator behind a decided operand is not computed", () => {
    const rsi = countKernelCalls("rsi");
    expect(compile(header + "close < 0 and rsi(14) < 30").run(universe).results).toEqual([]);
    expect(compile(header + "close > 0 or rsi(14) < 30").run(universe).results).toHaveLength(N);
    expect(rsi.calls()).toBe(0);
    // Needed for a column of a matching row, it is computed once.
    compile(header + "columns = [rsi(14)]\nclose > 0 or rsi(14) < 30").run(universe);
    expect(rsi.calls()).toBe(N);
  });

  it("instruments left out for lack of bars compute nothing", () => {
    const short = universe.map((x) => ({ symbol: x.symbol, bars: { h1: { ...x.bars.h1, time: x.bars.h1.time.subarray(0, 14), close: x.bars.h1.close.subarray(0, 14) } } }));
    const rsi = countKernelCalls("rsi");
    expect(compile(header + "columns = [rsi(14)]\ntrue").run(short).results).toEqual([]);
    expect(rsi.calls()).toBe(0);
  });
});
