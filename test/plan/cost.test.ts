/**
 * The cost model (src/plan/cost.ts; issue 23.6): a function call is priced over the bars its
 * source really fetches (`compile(q).fetch`: warm-up included), not max(minLookback, 300).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, costOf as costOfQuery, validate, workOf } from "../../src/api.js";
import { DEFAULT_COST_BUDGET, historyCostError, historyPrice } from "../../src/plan/cost.js";
import { arbitraryQuery } from "../../src/testing/index.js";

const HEAD = 'market = "CRYPTO"\ntimeframe = h1\n';

/** The cost `validate` reports when the budget is one below it. */
function costOf(query: string): number {
  const refused = validate(query, { costBudget: 1 });
  if (refused.valid) throw new Error("expected a refusal");
  const match = /its cost is ([\d,]+) bar-steps/.exec(refused.error.message);
  if (!match) throw new Error(refused.error.message);
  return Number(match[1]!.replace(/,/g, ""));
}

describe("the cost model", () => {
  it("prices a kama screen over the ~3,300 bars its warm-up fetches", () => {
    const query = `${HEAD}kama(10) > 0`;
    const fetched = compile(query).fetch[0]!.bars;
    expect(fetched).toBeGreaterThan(3000);
    // sma(11) needs the same bars of close (L = 11) but fetches the service's 300: the two
    // screens differ by the kernel's bars alone. (Before: both priced at 300, kama at 313.)
    const sma = costOf(`${HEAD}sma(11) > 0`);
    expect(sma).toBe(300 + 11 + 1 + 1);
    expect(costOf(query)).toBe(sma - 300 + fetched);
    expect(validate(query, { costBudget: costOf(query) - 1 }).valid).toBe(false);
    expect(validate(query, { costBudget: costOf(query) })).toEqual({ valid: true });
  });

  it("gives every screen whose run is admitted history over 100 bars (decisions §5)", () => {
    fc.assert(
      fc.property(arbitraryQuery({ maxDepth: 3 }), fc.integer({ min: 1, max: 100 }), ({ text }, bars) => {
        let q;
        try {
          q = compile(text);
        } catch {
          return; // refused at run already (a plan error)
        }
        expect(historyCostError(workOf(q), bars, DEFAULT_COST_BUDGET)).toBeUndefined();
        // Priced as its run up to 100 bars, whatever the budget the run was admitted under.
        expect(historyPrice(workOf(q), bars)).toBe(costOfQuery(q));
      }),
      { numRuns: 200, seed: 20261205 },
    );
  });

  it("gives a screen of a few indicators history over 1,000 bars, one with kama too", () => {
    for (const condition of ["rsi(14) < 30 and close > ema(close, 50) and adx(14) > 20", "rsi(14) < 30 and close > ema(close, 50) and adx(14) > 20 and close > kama(10)"]) {
      const q = compile(`${HEAD}columns = [rsi(14), adx(14)]\n${condition}`);
      expect(historyCostError(workOf(q), 1000, DEFAULT_COST_BUDGET), condition).toBeUndefined();
      // The price is the work of the passes: more than the run's, far less than 1,001 runs (the old price).
      expect(historyPrice(workOf(q), 1000)).toBeGreaterThan(costOfQuery(q));
      expect(historyPrice(workOf(q), 1000)).toBeLessThan(costOfQuery(q) * 20);
    }
  });

  it("refuses a window whose passes cost more than the budget, naming the price and the largest window that fits", () => {
    // Twenty kamas: 100 bars are priced as the run; each bar beyond costs its 20 kernels and the rest.
    const q = compile(`${HEAD}${Array.from({ length: 20 }, (_, k) => `close > kama(${k + 5})`).join(" or ")}`);
    const work = workOf(q);
    const budget = costOfQuery(q) + 10_000;
    const refused = historyCostError(work, 1000, budget);
    expect(refused?.code).toBe("history-cost");
    const most = Number(/ask for at most ([\d,]+) bars/.exec(refused!.message)![1]!.replace(/,/g, ""));
    expect(refused!.message).toBe(
      `History too costly to run: its cost is ${historyPrice(work, 1000).toLocaleString("en-US")} bar-steps per instrument for a window of 1,000 bars, above the budget of ${budget.toLocaleString("en-US")}; ask for at most ${most.toLocaleString("en-US")} bars`,
    );
    expect(most).toBeGreaterThanOrEqual(100);
    expect(historyCostError(work, most, budget)).toBeUndefined();
    expect(historyCostError(work, most + 1, budget)).toBeDefined();
    // No window fits a budget below the run's own price.
    expect(historyCostError(work, 1, costOfQuery(q) - 1)?.message).toMatch(/; use fewer distinct expressions, shorter lengths or fewer timeframes$/);
  });
});
