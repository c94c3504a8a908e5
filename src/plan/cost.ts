/**
 * The cost guard: a static price for every query, computed from the checked IR and the plan
 * before any bar is read, so the service refuses a query that would hold its only thread
 * (evaluation is synchronous) before doing that work. Three limits, each a 400 like any
 * other query error:
 * - tokens ({@link MAX_QUERY_TOKENS}): checked right after lexing, so a 64 KiB query of
 *   `close > 1 and ...` is refused for the price of lexing it, never parsed (parsing costs
 *   some µs per token);
 * - columns ({@link MAX_COLUMNS}): each column is a key in every result row, so thousands of
 *   them make a response of tens of MB; a syntax error at the first column over the limit;
 * - cost ({@link DEFAULT_COST_BUDGET}, `XqlOptions.costBudget`): the bar-steps the evaluator
 *   makes per instrument, a plan error.
 *
 * The cost: what one instrument costs to evaluate, in bar-steps. Every distinct computation
 * counts once per timeframe it is needed on (the IR is hash-consed, so `rsi(14)` used three
 * times counts once). A function call runs its kernel over every bar fetched for its
 * timeframe: the plan's fetch for that source (`compile(q).fetch`, max(minLookback, warm-up),
 * so a `kama` screen counts the ~3,300 bars its convergence fetches, not 300); anything else (comparisons, arithmetic, `and`/`or`,
 * offsets, literals, series) is computed only at the bars the plan needs it at, the latest
 * plus its offset. The service multiplies the cost by the market's instruments, which the
 * budget's default takes into account (docs/deployment.md, "Limits and guards", has the
 * measured time per unit).
 */
import type { CheckedQuery } from "../check/check.js";
import { children, type IrNode } from "../check/ir.js";
import { fail, type XqlError } from "../errors.js";
import type { Planned } from "./plan.js";
import { MIN_WARMUP, type Timeframe } from "../types.js";

export { MAX_QUERY_TOKENS } from "../syntax/parse.js";
/** Most columns a query may return. */
export const MAX_COLUMNS = 50;
/** Default budget of a query's static cost (`queryCost`): bar-steps per instrument. */
export const DEFAULT_COST_BUDGET = 100_000;
/** The bars the service fetches per source at least (its default warmup, `MIN_WARMUP`). */
const MIN_FETCH_BARS = MIN_WARMUP;

/** The static cost of a planned query: bar-steps per instrument (see the module comment). */
export function queryCost(checked: CheckedQuery, planned: Planned): number {
  const calls = new Set<number>();
  const seen = new Set<number>();
  const stack: IrNode[] = [checked.condition.ir, ...checked.columns.map((c) => c.ir), ...checked.sort.map((s) => s.ir)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    if (node.op === "call") calls.add(node.id);
    stack.push(...children(node));
  }
  const bars = new Map<string, number>();
  // What a source really fetches (warm-up included), never less than the service's default warmup.
  for (const source of planned.fetch) bars.set(source.timeframe, Math.max(source.bars, MIN_FETCH_BARS));
  let cost = 0;
  for (const [key, offset] of planned.needs) {
    const at = key.indexOf("@");
    const id = Number(key.slice(0, at));
    const timeframe = key.slice(at + 1) as Timeframe;
    cost += calls.has(id) ? (bars.get(timeframe) ?? MIN_FETCH_BARS) : offset + 1;
  }
  return cost;
}

/** Refuses a query with more than {@link MAX_COLUMNS} columns: a syntax error at the first one beyond. */
export function checkColumns(checked: CheckedQuery): void {
  const beyond = checked.columns[MAX_COLUMNS];
  if (beyond) {
    // Raised once the query is checked, on the way to the plan.
    const at = { text: checked.text, offset: beyond.expression.span.start, stage: "plan" } as const;
    throw fail("too-many-columns", { max: MAX_COLUMNS, count: checked.columns.length }, at);
  }
}

/** Refuses a query whose {@link queryCost} exceeds the budget (a plan error naming both figures); returns the cost. */
export function checkCost(checked: CheckedQuery, planned: Planned, budget: number): number {
  const cost = queryCost(checked, planned);
  if (cost > budget) {
    throw fail("cost-budget", { cost, budget });
  }
  return cost;
}

/**
 * The refusal of a screen history whose price is above the budget, or undefined. History
 * evaluates the query as of each bar of its window, so it is priced as that many runs and one
 * more (decisions §2 "Fair use": the query's cost × (window + 1), against the same budget as a
 * run); the message says the largest window this query may ask for.
 */
export function historyCostError(cost: number, bars: number, budget: number): XqlError | undefined {
  if (cost * (bars + 1) <= budget) return undefined;
  return fail("history-cost", { cost, bars, budget });
}
