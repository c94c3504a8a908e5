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
import { calendarFactor } from "../eval/anchor.js";
import { MAX_HISTORY_BARS, MIN_WARMUP, TIMEFRAME_MS, type Timeframe } from "../types.js";

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
 * The work of one query per base bar, by source: what history's price (decisions §5, 2026-12-05)
 * is made of. Each function call runs its kernel once per bar its source's passes cover; every
 * other node is computed once per window bar.
 */
export interface QueryWork {
  readonly market: string;
  readonly base: Timeframe;
  /** Per plan source: its fetch F and the distinct calls computed on it. */
  readonly sources: readonly { readonly timeframe: Timeframe; readonly fetch: number; readonly calls: number }[];
  /** Distinct nodes that are not calls (comparisons, arithmetic, series, offsets, ...). */
  readonly other: number;
  /** The run's static cost ({@link queryCost}). */
  readonly runCost: number;
}

/** The {@link QueryWork} of a planned query. */
export function queryWork(checked: CheckedQuery, planned: Planned, runCost: number): QueryWork {
  const calls = new Map<Timeframe, number>();
  let other = 0;
  const isCall = new Set<number>();
  const stack: IrNode[] = [checked.condition.ir, ...checked.columns.map((c) => c.ir), ...checked.sort.map((s) => s.ir)];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    if (node.op === "call") isCall.add(node.id);
    stack.push(...children(node));
  }
  for (const key of planned.needs.keys()) {
    const at = key.indexOf("@");
    const timeframe = key.slice(at + 1) as Timeframe;
    if (isCall.has(Number(key.slice(0, at)))) calls.set(timeframe, (calls.get(timeframe) ?? 0) + 1);
    else other++;
  }
  return {
    market: planned.plan.market,
    base: planned.baseTimeframe,
    sources: planned.fetch.map((f) => ({ timeframe: f.timeframe, fetch: Math.max(f.bars, MIN_FETCH_BARS), calls: calls.get(f.timeframe) ?? 0 })),
    other,
    runCost,
  };
}

/**
 * Bar-steps per instrument of history's passes over a window of `bars` base bars, at worst: a
 * pass per anchor of any source (a source's anchor moves once per F of its bars), each covering
 * up to (g + 1)·F bars of every source before its first bar (anchor.ts), plus the window's own
 * bars; every call once per bar covered, every other node once per window bar.
 */
export function passWork(work: QueryWork, bars: number): number {
  const g = calendarFactor(work.market);
  const baseMs = TIMEFRAME_MS[work.base];
  let passes = 1;
  const own = work.sources.map((s) => Math.ceil((bars * baseMs) / TIMEFRAME_MS[s.timeframe]));
  work.sources.forEach((s, k) => (passes += Math.ceil((own[k]! - 1) / s.fetch)));
  let total = work.other * bars;
  work.sources.forEach((s, k) => (total += s.calls * (own[k]! + passes * Math.ceil((g + 1) * s.fetch))));
  return total;
}

/** The window every screen whose run is admitted may ask history for (decisions §5). */
export const ADMITTED_HISTORY_BARS = 100;

/**
 * History's price (decisions §5, 2026-12-05): the work its passes do. A window of up to
 * {@link ADMITTED_HISTORY_BARS} bars is priced as the query's run — the contract gives every
 * screen whose run is admitted that window, though its passes do up to a few runs' work — and a
 * longer one adds the work of its passes beyond that window's ({@link passWork}), against the same
 * budget as a run.
 */
export function historyPrice(work: QueryWork, bars: number): number {
  return work.runCost + Math.max(0, passWork(work, bars) - passWork(work, ADMITTED_HISTORY_BARS));
}

/**
 * The refusal of a screen history whose price ({@link historyPrice}) is above the budget, or
 * undefined; the message names the price and the largest window that fits.
 */
export function historyCostError(work: QueryWork, bars: number, budget: number, most = MAX_HISTORY_BARS): XqlError | undefined {
  const price = historyPrice(work, bars);
  if (price <= budget) return undefined;
  // The price grows with the window: the largest that fits, by bisection.
  let lo = 0;
  let hi = Math.min(bars - 1, most);
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (historyPrice(work, mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return fail("history-cost", { cost: price, bars, budget, most: lo });
}
