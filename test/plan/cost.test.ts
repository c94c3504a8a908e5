/**
 * The cost model (src/plan/cost.ts; issue 23.6): a function call is priced over the bars its
 * source really fetches (`compile(q).fetch`: warm-up included), not max(minLookback, 300).
 */
import { describe, expect, it } from "vitest";
import { compile, validate } from "../../src/api.js";
import { historyCostError } from "../../src/plan/cost.js";

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

  it("prices a history as cost × (window + 1), naming the largest window that fits", () => {
    expect(historyCostError(100, 999, 100_000)).toBeUndefined();
    expect(historyCostError(100, 1000, 100_000)?.message).toBe(
      "History too costly to run: its cost is 100,100 bar-steps per instrument (100 × 1,001 for a window of 1,000 bars), above the budget of 100,000; ask for at most 999 bars",
    );
    expect(historyCostError(60_000, 1, 100_000)?.message).toMatch(/; use fewer distinct expressions, shorter lengths or fewer timeframes$/);
    expect(historyCostError(60_000, 1, 100_000)?.code).toBe("history-cost");
  });
});
