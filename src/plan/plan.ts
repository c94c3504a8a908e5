/**
 * Stage `plan`: typed IR → data requirements. For every timeframe the query touches, which raw
 * series it reads and how many bars (`minLookback`) make every expression defined at the
 * latest bar, per decisions §1 "Lookback". The same walk records, per node and timeframe, how
 * many bars before the latest the evaluator must compute (`needs`).
 */
import type { CheckedQuery } from "../check/check.js";
import { children, type IrNode } from "../check/ir.js";
import { assertNever, fail } from "../errors.js";
import {
  DEFAULT_LOOKBACK_CEILING,
  DEFAULT_WARMUP_CEILING,
  MIN_WARMUP,
  TIMEFRAME_MS,
  type FetchSource,
  type Plan,
  type PlanSource,
  type RawSeries,
  type Timeframe,
} from "../types.js";

/** For each `node.id@timeframe`: the number of bars before the latest at which the node is needed. */
export type Needs = ReadonlyMap<string, number>;

export const needKey = (node: IrNode, timeframe: Timeframe): string => `${node.id}@${timeframe}`;

export interface Planned {
  readonly plan: Plan;
  /** Per plan source, in plan order: what to fetch (`bars = max(minLookback, warmup)`). */
  readonly fetch: readonly FetchSource[];
  readonly baseTimeframe: Timeframe;
  readonly needs: Needs;
}

/**
 * Bars of `inner` that cover `k` bars of `outer`: an offset of k bars outside a `tf::` prefix
 * adds ceil(k · dur(outer) / dur(inner)) bars inside it.
 */
export function innerOffset(k: number, outer: Timeframe, inner: Timeframe): number {
  return k === 0 ? 0 : Math.ceil((k * TIMEFRAME_MS[outer]) / TIMEFRAME_MS[inner]);
}

export function planQuery(
  checked: CheckedQuery,
  lookbackCeiling = DEFAULT_LOOKBACK_CEILING,
  warmupCeiling = DEFAULT_WARMUP_CEILING,
): Planned {
  if (checked.market === undefined) throw fail("missing-market", {});
  if (checked.timeframe === undefined) throw fail("missing-timeframe", {});
  const base = checked.timeframe;
  const needs = new Map<string, number>();
  const lookback = new Map<Timeframe, number>();
  const series = new Map<Timeframe, Set<RawSeries>>();

  const need = (timeframe: Timeframe, bars: number, raw: readonly RawSeries[]): void => {
    lookback.set(timeframe, Math.max(lookback.get(timeframe) ?? 0, bars));
    let set = series.get(timeframe);
    if (!set) series.set(timeframe, (set = new Set()));
    for (const r of raw) set.add(r);
  };

  // An explicit stack: long `a + b + c ...` chains must not cost call-stack depth.
  const stack: [IrNode, Timeframe, number][] = [[checked.condition.ir, base, 0]];
  /** Recursive calls with a warm-up, with the most bars before the latest they are needed at. */
  const recursive = new Map<string, [IrNode, Timeframe, number]>();
  for (const c of checked.columns) stack.push([c.ir, base, 0]);
  for (const s of checked.sort) stack.push([s.ir, base, 0]);
  while (stack.length > 0) {
    const [node, tf, k] = stack.pop()!;
    const key = needKey(node, tf);
    const seen = needs.get(key);
    if (seen !== undefined && seen >= k) continue;
    needs.set(key, k);
    need(tf, k + 1, []);
    switch (node.op) {
      case "number":
      case "boolean":
        break;
      case "series":
        need(tf, k + 1, node.series.raw);
        break;
      case "call": {
        if (node.fn.warmup !== undefined) recursive.set(key, [node, tf, k]);
        const extra = node.fn.extraLookback(node.consts);
        for (const arg of node.args) stack.push([arg, tf, k + extra]);
        // Implicit columns count as inputs with L = 1; a call with no input at all has L = 1 + extra.
        if (node.fn.implicit.length > 0 || node.args.length === 0) {
          need(tf, k + extra + 1, node.fn.implicit.filter((c): c is RawSeries => c !== "time"));
        }
        break;
      }
      case "history":
        stack.push([node.operand, tf, k + node.offset]);
        break;
      case "timeframe":
        stack.push([node.operand, node.timeframe, innerOffset(k, tf, node.timeframe)]);
        break;
      case "negate":
      case "not":
        stack.push([node.operand, tf, k]);
        break;
      case "and":
      case "or":
        for (const operand of node.operands) stack.push([operand, tf, k]);
        break;
      case "compare":
      case "arithmetic":
        stack.push([node.left, tf, k], [node.right, tf, k]);
        break;
      default:
        assertNever(node, "IR op");
    }
  }

  const order = [...lookback.keys()].sort((a, b) =>
    a === base ? -1 : b === base ? 1 : TIMEFRAME_MS[a] - TIMEFRAME_MS[b],
  );
  const sources: PlanSource[] = order.map((timeframe) => ({
    timeframe,
    series: [...series.get(timeframe)!].sort(),
    minLookback: lookback.get(timeframe)!,
  }));
  for (const source of sources) {
    if (source.minLookback > lookbackCeiling) {
      throw fail("lookback-ceiling", { lookback: source.minLookback, timeframe: source.timeframe, ceiling: lookbackCeiling });
    }
  }
  const warm = warmupBars([...recursive.values()]);
  const fetch: FetchSource[] = sources.map((s) => {
    const warmup = Math.min(warmupCeiling, Math.max(MIN_WARMUP, warm.get(s.timeframe) ?? 0));
    return { timeframe: s.timeframe, series: [...s.series], bars: Math.max(s.minLookback, warmup) };
  });
  return { plan: { market: checked.market, sources }, fetch, baseTimeframe: base, needs };
}

/**
 * Warm-up per timeframe (decisions §1 "Evaluation"): for each recursive call needed `k` bars
 * before the latest, `k + L(call) + chain(call)` bars, where `L` is the call's lookback on its
 * timeframe and `chain` its own warm-up plus the largest chain among its inputs on the same
 * timeframe (nested recursions add: `ema(rsi(14), 9)` forgets both seeds). A `tf::` prefix
 * starts a chain of its own on the inner timeframe, which the walk records separately.
 */
function warmupBars(calls: readonly [IrNode, Timeframe, number][]): Map<Timeframe, number> {
  const lookbackMemo = new Map<string, number>();
  const chainMemo = new Map<string, number>();
  /** Post-order over the same-timeframe subtree of `root`, with an explicit stack (long chains cost no depth). */
  const solve = (root: IrNode, tf: Timeframe): void => {
    const ms = TIMEFRAME_MS[tf];
    const stack: [IrNode, boolean][] = [[root, false]];
    while (stack.length > 0) {
      const [node, expanded] = stack.pop()!;
      const key = `${node.id}@${tf}`;
      if (lookbackMemo.has(key)) continue;
      const kids = node.op === "timeframe" ? [] : children(node);
      if (!expanded) {
        stack.push([node, true]);
        for (const kid of kids) if (!lookbackMemo.has(`${kid.id}@${tf}`)) stack.push([kid, false]);
        continue;
      }
      const L = (n: IrNode): number => lookbackMemo.get(`${n.id}@${tf}`)!;
      const C = (n: IrNode): number => chainMemo.get(`${n.id}@${tf}`)!;
      const kidChain = kids.reduce((m, kid) => Math.max(m, C(kid)), 0);
      let lookback: number;
      let chain = kidChain;
      switch (node.op) {
        case "number":
        case "boolean":
        case "series":
        case "timeframe":
          lookback = 1;
          break;
        case "call": {
          const inputs = node.args.map(L);
          if (node.fn.implicit.length > 0 || inputs.length === 0) inputs.push(1);
          lookback = Math.max(...inputs) + node.fn.extraLookback(node.consts);
          if (node.fn.warmup !== undefined) chain += node.fn.warmup(node.consts, ms);
          break;
        }
        case "history":
          lookback = L(node.operand) + node.offset;
          break;
        case "negate":
        case "not":
        case "and":
        case "or":
        case "compare":
        case "arithmetic":
          lookback = kids.reduce((m, kid) => Math.max(m, L(kid)), 1);
          break;
        default:
          assertNever(node, "IR op");
      }
      lookbackMemo.set(key, lookback);
      chainMemo.set(key, chain);
    }
  };
  const bars = new Map<Timeframe, number>();
  for (const [node, tf, k] of calls) {
    solve(node, tf);
    const key = `${node.id}@${tf}`;
    const need = k + lookbackMemo.get(key)! + chainMemo.get(key)!;
    bars.set(tf, Math.max(bars.get(tf) ?? 0, need));
  }
  return bars;
}
