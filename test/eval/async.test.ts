/**
 * runAsync and historyAsync: the same results as run and history, computed in slices with a
 * turn of the event loop between them, so a server screening a large universe keeps answering.
 */
import { describe, expect, it } from "vitest";
import { compile, syntheticUniverse } from "../../src/index.js";

const QUERY = `market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14), d::sma(5)]
sort = rsi(14) asc
limit = 15
rsi(14) < 45 or crossover(ema(close, 9), ema(close, 21)) and close > d::sma(5)`;
const universe = syntheticUniverse({ market: "CRYPTO", symbols: 300, timeframes: ["h1", "d"], bars: 400 });

/** Counts turns of the event loop (setImmediate callbacks) until stopped. */
function turnCounter(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop() {
      running = false;
    },
  };
}

describe("evaluation that yields to the event loop", () => {
  const q = compile(QUERY);

  it("runAsync gives run's result exactly, and lets the event loop turn while it works", async () => {
    const expected = q.run(universe);
    expect(expected.results.length).toBeGreaterThan(0);
    const counter = turnCounter();
    const got = await q.runAsync(universe, { sliceMs: 0 });
    counter.stop();
    expect(got).toEqual(expected);
    // sliceMs 0: a turn after every instrument evaluated.
    expect(counter.turns).toBeGreaterThan(100);
  });

  it("historyAsync gives history's result exactly, and lets the event loop turn while it works", async () => {
    const expected = q.history(universe, { bars: 50 });
    expect(expected.stats.matches).toBeGreaterThan(0);
    const counter = turnCounter();
    const got = await q.historyAsync(universe, { bars: 50, sliceMs: 0 });
    counter.stop();
    expect(got).toEqual(expected);
    expect(counter.turns).toBeGreaterThan(100);
  });

  it("two overlapping async runs of one compiled query do not disturb each other", async () => {
    const [a, b] = await Promise.all([q.runAsync(universe, { sliceMs: 0 }), q.runAsync(universe.slice(0, 120), { sliceMs: 0 })]);
    expect(a).toEqual(q.run(universe));
    expect(b).toEqual(q.run(universe.slice(0, 120)));
  });

  it("refuses a slice that is not a non-negative number", () => {
    expect(() => q.runAsync(universe, { sliceMs: -1 })).toThrow(RangeError);
    expect(() => q.runAsync(universe, { sliceMs: Number.NaN })).toThrow(RangeError);
  });
});
